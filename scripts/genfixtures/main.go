// Command genfixtures writes the test fixtures of the spreadsheet, slide,
// e-mail and OCR readers (formats/xlsx, formats/pptx, formats/eml,
// formats/ocr) from the templates below, so that they can be made again
// and changed in review. Run it from the repository root:
//
//	go run ./scripts/genfixtures            # xlsx, pptx, eml
//	go run ./scripts/genfixtures photo IN.png OUT.png
//	go run ./scripts/genfixtures bigxlsx OUT.xlsx ROWS
//	go run ./scripts/genfixtures bigcsv OUT.csv ROWS
//
// The second form turns a rendered page into a photo-like image (tilted,
// unevenly lit, noisy), for the OCR tests; scripts/gen-ocr-fixtures.sh
// calls it.
package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) == 4 && os.Args[1] == "photo" {
		if err := photo(os.Args[2], os.Args[3]); err != nil {
			fail(err)
		}
		return
	}
	if len(os.Args) == 4 && (os.Args[1] == "bigxlsx" || os.Args[1] == "bigcsv") {
		n, err := strconv.Atoi(os.Args[3])
		if err != nil {
			fail(err)
		}
		write := bigXLSX
		if os.Args[1] == "bigcsv" {
			write = bigCSV
		}
		if err := write(os.Args[2], n); err != nil {
			fail(err)
		}
		return
	}
	if len(os.Args) != 1 {
		fail(fmt.Errorf("usage: genfixtures | genfixtures photo IN.png OUT.png | genfixtures bigxlsx|bigcsv OUT ROWS"))
	}
	for _, step := range []func() error{writeXLSX, writePPTX, writeEML} {
		if err := step(); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genfixtures:", err)
	os.Exit(1)
}
