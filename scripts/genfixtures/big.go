package main

import (
	"fmt"
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
	if err := sw.SetRow("A1", []any{"Invoice", "Region", "Customer", "Quarter", "Amount", "Note"}); err != nil {
		return err
	}
	for i := 2; i <= n; i++ {
		row := []any{fmt.Sprintf("INV-%07d", i), regions[i%len(regions)], "Customer " + strconv.Itoa(i%997), fmt.Sprintf("Q%d 2024", i%4+1), i * 37 % 100000, "paid on time"}
		if err := sw.SetRow("A"+strconv.Itoa(i), row); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.SaveAs(out)
}
