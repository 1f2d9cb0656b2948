//go:build !unix

package wordvec

import "time"

func cpuTime() time.Duration { return 0 }
