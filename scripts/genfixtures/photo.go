package main

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
)

// photo turns the top half of a rendered page into a photo-like image:
// turned by 1.2°,
// lit unevenly (darker towards one corner, a grey paper tone), with
// sensor noise. The output is deterministic.
func photo(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	src, err := png.Decode(f)
	f.Close()
	if err != nil {
		return err
	}
	b := src.Bounds()
	b.Max.Y = b.Min.Y + b.Dy()*11/20 // the top half of the page: a small file
	w, h := b.Dx(), b.Dy()
	dst := image.NewGray(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	theta := 1.2 * math.Pi / 180
	sin, cos := math.Sin(theta), math.Cos(theta)
	cx, cy := float64(w)/2, float64(h)/2
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// the source pixel that lands at (x, y) after the turn
			dx, dy := float64(x)-cx, float64(y)-cy
			sx := int(math.Round(cos*dx+sin*dy+cx)) + b.Min.X
			sy := int(math.Round(-sin*dx+cos*dy+cy)) + b.Min.Y
			v := 235.0 // the table beyond the page
			if image.Pt(sx, sy).In(b) {
				gray := color.GrayModel.Convert(src.At(sx, sy)).(color.Gray)
				v = float64(gray.Y)
			}
			light := 0.78 + 0.2*(1-(float64(x)/float64(w)+float64(y)/float64(h))/2)
			v = v*light + rng.NormFloat64()*9
			// 16 grey levels, as a cheap camera's JPEG-to-PNG often has
			dst.SetGray(x, y, color.Gray{Y: uint8(max(0, min(255, v))) &^ 15})
		}
	}
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := png.Encode(o, dst); err != nil {
		o.Close()
		return err
	}
	return o.Close()
}
