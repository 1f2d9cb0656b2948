package pdf

import (
	"image"
	"image/color"
	"testing"
)

func TestInkShareFastPaths(t *testing.T) {
	r := image.Rect(0, 0, 10, 4)
	g, n, a := image.NewGray(r), image.NewNRGBA(r), image.NewRGBA(r)
	for y := 0; y < 4; y++ {
		for x := 0; x < 10; x++ {
			c := color.Gray{Y: 255}
			if x < 3 {
				c.Y = 20
			}
			g.Set(x, y, c)
			n.Set(x, y, c)
			a.Set(x, y, c)
		}
	}
	for _, img := range []image.Image{g, n, a, g.SubImage(image.Rect(0, 0, 5, 4))} {
		want := 0.3
		if img.Bounds().Dx() == 5 {
			want = 0.6
		}
		if got := inkShare(img, image.Rect(0, 0, 10, 4)); got != want {
			t.Errorf("%T: %v, want %v", img, got, want)
		}
	}
}

// A line OCR read with low confidence (a chart's or a logo's text) is
// never a heading, however bold or large it reads.
func TestUnsureLineIsNoHeading(t *testing.T) {
	lines := []line{
		{page: 1, text: "Fuel Supplies and Costs", size: 10, bold: true},
		{page: 1, text: "During 2023, FedEx Express purchased jet fuel from various suppliers under contracts.", size: 10},
		{page: 1, text: "The fuel represented by these contracts is purchased at market prices and varies.", size: 10},
		{page: 1, text: "Seven Big Bold Words", size: 14, bold: true, unsure: true},
		{page: 1, text: "We do not have any jet fuel hedging contracts at the end of the year.", size: 10},
	}
	body := bodySize(lines)
	if !isHeadingLine(lines, 0, body) {
		t.Fatal("a bold line over body text is no longer a heading: the test shows nothing")
	}
	if isHeadingLine(lines, 3, body) {
		t.Error("a low-confidence OCR line read as a heading")
	}
}
