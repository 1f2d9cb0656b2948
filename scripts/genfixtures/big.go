package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"strconv"

	"github.com/xuri/excelize/v2"
)

var regions = []string{"EMEA", "APAC", "Americas", "LATAM"}

// bigXLSX writes a workbook of one sheet of n rows (a header and n-1 rows
// of six columns) with excelize's stream writer, for the memory
// measurement of docs/notes/formats.md:
//
//	go run ./scripts/genfixtures bigxlsx /tmp/big.xlsx 100000
func bigXLSX(out string, n int) error {
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		return err
	}
	if err := sw.SetRow("A1", bigHeader); err != nil {
		return err
	}
	for i := 2; i <= n; i++ {
		if err := sw.SetRow("A"+strconv.Itoa(i), bigRow(i)); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.SaveAs(out)
}

// bigHeader and bigRow are the header and row i (from 2) of the large
// sheets.
var bigHeader = []any{"Invoice", "Region", "Customer", "Quarter", "Amount", "Note"}

func bigRow(i int) []any {
	return []any{fmt.Sprintf("INV-%07d", i), regions[i%len(regions)], "Customer " + strconv.Itoa(i%997), fmt.Sprintf("Q%d 2024", i%4+1), i * 37 % 100000, "paid on time"}
}

// bigCSV writes the rows of bigXLSX as CSV:
//
//	go run ./scripts/genfixtures bigcsv /tmp/big.csv 100000
func bigCSV(out string, n int) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	for i := 1; i <= n; i++ {
		row := bigHeader
		if i > 1 {
			row = bigRow(i)
		}
		rec := make([]string, len(row))
		for j, v := range row {
			rec[j] = fmt.Sprint(v)
		}
		w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
