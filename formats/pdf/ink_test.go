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
