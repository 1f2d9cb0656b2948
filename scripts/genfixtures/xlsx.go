package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/xuri/excelize/v2"
)

// writeXLSX writes formats/xlsx/testdata/sales.xlsx: a sheet of regional
// figures with a number format, a price list, and an empty sheet.
func writeXLSX() error {
	f := excelize.NewFile()
	defer f.Close()
	f.SetDocProps(&excelize.DocProperties{Title: "Regional sales 2024"})
	f.SetSheetName("Sheet1", "Sales")
	rows := [][]any{
		{"Region", "Q2 2024", "Q3 2024", "Owner"},
		{"EMEA", 1102, 1204, "Ines Duarte"},
		{"APAC", 877, 912, "Kenji Mori"},
		{"Americas", 1530, nil, "Ruth Okafor"},
		{},
		{"Total", 3509, 2116},
	}
	for i, r := range rows {
		if err := f.SetSheetRow("Sales", fmt.Sprintf("A%d", i+1), &r); err != nil {
			return err
		}
	}
	style, err := f.NewStyle(&excelize.Style{NumFmt: 3}) // #,##0
	if err != nil {
		return err
	}
	if err := f.SetCellStyle("Sales", "B2", "C6", style); err != nil {
		return err
	}
	if _, err := f.NewSheet("Prices"); err != nil {
		return err
	}
	prices := [][]any{
		{"SKU", "Item", "", "Unit price"},
		{"X-100", "Cable, 2 m", "in stock", "4.50"},
		{"X-200", "Dock \"Pro\"", "", "129.00"},
	}
	for i, r := range prices {
		if err := f.SetSheetRow("Prices", fmt.Sprintf("A%d", i+1), &r); err != nil {
			return err
		}
	}
	if _, err := f.NewSheet("Empty"); err != nil {
		return err
	}
	out := filepath.Join("formats", "xlsx", "testdata", "sales.xlsx")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return f.SaveAs(out)
}
