package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
)

// writeEML writes the messages of formats/eml/testdata from the templates
// below; attachments are the other generated fixtures, base64-encoded.
func writeEML() error {
	deck, err := os.ReadFile(filepath.Join("formats", "pptx", "testdata", "review.pptx"))
	if err != nil {
		return err
	}
	csv := "Team,Budget 2025\r\nResearch,\"2,400,000\"\r\nSales,\"1,100,000\"\r\n"
	r := strings.NewReplacer(
		"{{CSV}}", b64([]byte(csv)),
		"{{DECK}}", b64(deck),
		"{{BROKEN}}", b64([]byte("PK\x03\x04 this is not a workbook")),
	)
	dir := filepath.Join("formats", "eml", "testdata")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, tmpl := range map[string]string{"budget.eml": budgetMail, "latin1.eml": latin1Mail, "html-only.eml": htmlMail} {
		text := strings.ReplaceAll(r.Replace(tmpl), "\n", "\r\n")
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func b64(b []byte) string {
	s := base64.StdEncoding.EncodeToString(b)
	var out strings.Builder
	for len(s) > 76 {
		out.WriteString(s[:76] + "\n")
		s = s[76:]
	}
	out.WriteString(s)
	return out.String()
}

const budgetMail = `Return-Path: <ines.duarte@example.org>
Message-ID: <20241002.1@example.org>
Date: Wed, 02 Oct 2024 09:14:00 +0100
From: Ines Duarte <ines.duarte@example.org>
To: Finance team <finance@example.org>
Cc: Kenji Mori <kenji.mori@example.org>
Subject: Budget 2025 and the Q3 review
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="outer"

This is a multi-part message in MIME format.

--outer
Content-Type: multipart/alternative; boundary="alt"

--alt
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

Hello all,

The research budget for 2025 is attached; the deck from Tuesday's review =
is attached too.

Regards, Ines
--alt
Content-Type: text/html; charset=utf-8

<html><body><p>Hello all,</p><p>The <b>research budget</b> for 2025 is attached.</p></body></html>
--alt--

--outer
Content-Type: text/csv; name="budget.csv"
Content-Disposition: attachment; filename="budget.csv"
Content-Transfer-Encoding: base64

{{CSV}}
--outer
Content-Type: application/vnd.openxmlformats-officedocument.presentationml.presentation
Content-Disposition: attachment; filename="review.pptx"
Content-Transfer-Encoding: base64

{{DECK}}
--outer
Content-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet
Content-Disposition: attachment; filename="old-figures.xlsx"
Content-Transfer-Encoding: base64

{{BROKEN}}
--outer--
`

const latin1Mail = `Message-ID: <20241003.2@example.org>
Date: Thu, 03 Oct 2024 16:40:00 +0200
From: =?iso-8859-1?q?J=FCrgen_M=FCller?= <jm@example.org>
To: ines.duarte@example.org
Subject: =?iso-8859-1?q?Gr=FC=DFe_aus_M=FCnchen?=
MIME-Version: 1.0
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

Die Miete f=FCr B=FCro 4 betr=E4gt 1.850 =80 pro Monat.
`

const htmlMail = `Message-ID: <20241004.3@example.org>
Date: Fri, 04 Oct 2024 08:00:00 +0000
From: Notices <notices@example.org>
To: ines.duarte@example.org
Subject: Office closed on Monday
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8

<html><head><style>p{color:red}</style></head><body><h1>Office closed</h1><p>The Lisbon office is closed on Monday 7 October for maintenance.</p></body></html>
`
