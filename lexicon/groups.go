package lexicon

// defaultGroups is the curated thesaurus: one group of interchangeable
// words or phrases a line, comma-separated, for business, legal, policy,
// HR, IT-service and technical-manual English. Lines starting with '#'
// are comments. Entries are matched stem by stem (textproc.Stem), so one
// inflection stands for all ("pay" covers "pays", "paying"). Irregular
// forms that Porter2 does not map to their verb ("paid", "kept", "held",
// "sent", "began", "bought", ...) are listed explicitly.
//
// Choices worth knowing:
//   - "warranty" is NOT in the promise/guarantee group. In contracts a
//     warranty is a specific term whose breach gives a right to damages; a
//     guarantee is usually a third party's promise to answer for another's
//     debt. A question about a warranty is not answered by a service-level
//     commitment. "warranty" is grouped only with "warrant".
//   - "penalty" and "fee" are separate groups: a late fee is a penalty, but
//     not every fee is one.
//   - Words with a common unrelated sense ("fire", "execute", "title",
//     "duty", "party") are left out of groups where that sense would mislead.
//   - Groups are not transitive: a word in two groups ("inform": notify /
//     information, which Porter2 conflates) is a synonym of both groups'
//     members, but the two groups are not merged.
const defaultGroups = `
# money and payment
pay, payment, paid, remit, remittance, disburse
unpaid, overdue, outstanding, late, delinquent, past due, in arrears, arrears, not paid, not been paid
fee, charge, cost, price, pricing, tariff
penalty, fine, sanction, surcharge
invoice, bill, billing
refund, reimburse, reimbursement, repay, repayment, money back
discount, rebate, markdown
deposit, down payment, advance payment, prepayment, upfront payment
tax, taxation, levy, vat
expense, expenditure, outlay, spending
salary, wage, wages, remuneration, pay rate
bank transfer, wire transfer, wire, electronic funds transfer, eft
credit card, card payment, debit card
estimate, quote, quotation
budget, allowance, allocation
profit, earnings, margin
revenue, income, turnover, sales
amount, sum
total, aggregate, overall, cumulative
free, no charge, free of charge, at no cost, complimentary, without charge
interest, finance charge
inflation, consumer price index, cpi, cost of living
currency, money
# time and periods
annual, annually, yearly, per year, per annum, each year, every year, a year
monthly, per month, each month, every month, a month
weekly, per week, each week, every week
daily, per day, each day, every day
quarterly, per quarter, each quarter, every quarter
hour, hr
business day, working day, workday
business hours, office hours, working hours, hours of operation
around the clock, round the clock, 24/7, 24x7, 24 hours a day
deadline, due date, cutoff, cut-off
duration, length, span, period
schedule, timetable, timeline, timeframe, time frame
start, begin, began, begun, commence, commencement, beginning, kick off
effective date, commencement date, start date
expire, expiry, expiration, lapse, run out
renew, renewal, extend, extension, prolong, roll over
immediately, at once, forthwith, without delay, straight away
promptly, quickly, swiftly, expeditiously
timely, on time, punctual
delay, postpone, defer, deferral, postponement, hold off
accelerate, expedite, speed up, hasten
complete, completion, finish, conclude, conclusion
fiscal year, financial year
# contract and legal
agreement, contract
terminate, termination, cancel, cancellation, end, rescind, rescission, discontinue
breach, violation, violate, infringe, contravene, contravention
limit, limitation, cap, ceiling, maximum, upper limit
minimum, floor, at least, lower limit
liability, liable, responsibility, responsible, accountable, accountability
indemnify, indemnification, indemnity, hold harmless
damage, damages, loss, harm
consequential damages, indirect damages, consequential loss, indirect loss
lost profits, loss of profits, loss of profit
promise, commit, commitment, guarantee, undertake, undertook, undertaken, undertaking, pledge, assure, assurance
warranty, warranties, warrant
dispute, disagreement, controversy, conflict
arbitration, arbitrate, arbitrator, arbitral
mediation, mediate, mediator, conciliation
lawsuit, litigation, legal action, legal proceedings, proceedings, sue
court, tribunal
lawyer, attorney, counsel, solicitor, legal counsel, legal adviser
law, legislation, statute, statutory
regulation, regulatory, rule
governing law, applicable law, choice of law
jurisdiction, venue, forum
comply, compliance, conform, adhere, abide
require, requirement, obligation, oblige, obligate, obligated
mandatory, compulsory, obligatory, required
optional, voluntary, elective
allow, permit, permission, authorise, authorize, authorisation, authorization, entitle
prohibit, prohibition, forbid, ban, disallow
consent, approve, approval, sign off, sign-off
reject, rejection, refuse, refusal, decline, deny, denial
accept, acceptance
request, demand, ask for
purchase, buy, bought, procure, procurement
amend, amendment, modify, modification, alter, alteration, revise, revision, change, vary, variation
waive, waiver, relinquish, forgo, forego
assign, assignment, transfer, novate, novation
subcontract, subcontractor, outsource, subprocessor, sub-processor
third party, outside party, external party, third-party
affiliate, subsidiary, parent company, group company
own, owner, ownership, proprietor
intellectual property, ip rights, proprietary rights
license, licence, licensed, sublicense, sublicence
force majeure, act of god, acts of god, beyond its reasonable control, beyond reasonable control
confidential, confidentiality, secret, secrecy, proprietary, non-public
non-disclosure agreement, nda, confidentiality agreement
disclose, disclosure, reveal, divulge
entire agreement, whole agreement, integration clause
severability, severable, severed
survive, survival, remain in effect, continue in force
notice, notify, notification, inform, advise, give notice
written, in writing
sign, signature, signed, countersign
negotiate, negotiation, bargain
proposal, offer, bid, tender
fraud, fraudulent, deception, misrepresentation
negligence, negligent, carelessness
misconduct, wrongdoing, malpractice
insurance, insure, insured, insurer, coverage
# "carry insurance" is "maintain insurance"
carry, maintain
representative, agent, delegate
officer, official
non-compete, noncompete, non-competition, restrictive covenant
solicit, solicitation, poach, entice
audit, auditor, inspect, inspection, examine, examination
review, evaluate, evaluation, assess, assessment, appraisal, appraise
certificate, certification, accreditation, accredited
statement of work, sow, work order
change request, change order
# parties and people
customer, client, buyer, purchaser
supplier, vendor, provider, contractor, seller
company, firm, corporation, organisation, organization, enterprise
person, individual
employee, staff, personnel, worker, workforce, staff member
manager, supervisor, line manager, boss
consultant, advisor, adviser
shareholder, stockholder
contact, point of contact, liaison, contact person
user, end user, account holder
children, child, minor, minors, kid
# HR and policy
hire, recruit, recruitment, employ, onboard
resign, resignation, quit, step down
dismiss, dismissal, layoff, lay off, discharge, let go
vacation, holiday, annual leave, paid time off, pto, time off
sick leave, sick day, sickness absence, medical leave
parental leave, maternity leave, paternity leave
probation, probationary period, trial period
notice period, period of notice
overtime, extra hours
benefit, perk, fringe benefit
pension, retirement plan, superannuation
health insurance, medical insurance, medical cover, health cover
training, education, course
complaint, grievance, objection
harassment, bullying, intimidation
discrimination, unfair treatment, bias
discipline, disciplinary
conduct, behaviour, behavior
gift, gratuity, hospitality
bribe, bribery, kickback, corruption
remote work, work from home, working from home, telework, telecommute, remote working
travel, trip, business trip
premises, office, facility, workplace, site
purpose, aim, goal, objective, target
procedure, process, protocol, routine
policy, guideline, rule
# data and privacy
data, information, info
personal data, personal information, personally identifiable information, pii
privacy, data protection
delete, deletion, erase, erasure, remove, removal, purge, destroy, destruction, dispose
keep, kept, retain, retention, store, storage, hold, held, preserve, preservation
collect, collection, gather, obtain, capture
process, processing, handle, handling
anonymise, anonymize, anonymisation, anonymization, de-identify, pseudonymise, pseudonymize
withdraw, withdrew, withdrawn, withdrawal, revoke, revocation, retract
opt out, opt-out, unsubscribe
cross-border transfer, international transfer, transfer abroad
data centre, data center, datacenter
record, log, register, logging
# IT service
uptime, availability, available
outage, downtime, interruption, disruption, unavailability, unavailable
service level agreement, sla, service levels, service level
service credit, credit
support, assistance, assist, help, helpdesk, help desk, service desk
respond, response, reply, answer, acknowledge, acknowledgement
response time, turnaround time, reaction time, time to respond
resolve, resolution, fix, remedy, rectify, repair, correct, cure
error, defect, bug, fault, flaw, malfunction, glitch
severity, priority, urgency
escalate, escalation
incident, issue, problem
maintenance, upkeep, servicing
upgrade, update, patch
install, installation, setup, set up, deploy, deployment
configure, configuration, settings, setting
backup, back up, back-up, snapshot
restore, restoration, recover, recovery
security, protection, safeguard, secure, protect
encrypt, encryption, encrypted, cryptographic
password, passphrase, credential, credentials
access, login, log in, log-in, sign in, sign-in
vulnerability, weakness, security hole
malware, virus, ransomware
attack, intrusion, hack, cyberattack
monitor, monitoring, track, tracking, observe, watch
alert, alarm, warning
suspend, suspension, pause, halt, stop, freeze
resume, reinstate, reinstatement, reactivate, restart
software, application, program, app
hardware, equipment, device, machine
server, host, hosting
website, web site, portal, web page
email, e-mail, electronic mail
phone, telephone
send, sent, transmit, forward
receive, receipt
deliver, delivery, ship, shipment, dispatch
deliverable, work product
provide, supply, furnish
metric, measure, indicator, kpi
capacity, throughput
performance, speed
# technical manuals
manual, guide, handbook, instructions, user guide
step, stage, phase
tool, utility, instrument
connect, attach, plug in, link
detach, disconnect, unplug, remove
shut down, shutdown, power off, switch off, turn off
start up, startup, boot, power on, switch on, turn on
clean, wipe, cleanse
replace, replacement, substitute, swap
hazard, danger, dangerous, hazardous
lifetime, lifespan, service life, useful life
size, dimension, dimensions
weight, mass
temperature, heat
adjust, adjustment, tune, calibrate, calibration
# general verbs and nouns (common wording that rarely names a topic;
# added with the key-term absence check, which must not mistake them for
# absent topics)
last, continue, remain, persist, endure
restrict, restriction, restrictive, constraint, restraint, limitation
miss, missed, fail, failure, fall short
need, require, necessary
happen, occur, arise
calculate, calculation, compute, computation, work out
explain, describe, description
show, display, demonstrate
choose, select, selection, opt, elect
verify, verification, confirm, confirmation, validate
include, contain, comprise, encompass
exclude, exclusion, omit, leave out
meet, satisfy, fulfil, fulfill, achieve
cause, result in, lead to
try, attempt, endeavour, endeavor, effort
create, make, produce, generate
find, discover, locate, identify
give, grant, provide
# quantity and change
increase, raise, rise, hike, uplift
decrease, reduce, reduction, lower, cut, decline
exceed, surpass, go beyond
additional, extra, supplementary, supplemental
exclusive, sole
automatic, automatically, auto
publicity, press release, public announcement
marketing, advertising, promotion
headquarters, head office, principal office, registered office
`
