package exec

import (
	"context"
	"io"
	"testing"
)

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// BenchmarkExecGiBStream streams 1 GiB (dd, 1 MiB blocks) into a writer
// instead of the capture; compare with BenchmarkExecGiBDD.
func BenchmarkExecGiBStream(b *testing.B) {
	r := NewRunner(Limits{})
	b.SetBytes(1 << 30)
	for b.Loop() {
		var n countingWriter
		out, err := r.Exec(context.Background(), Request{Command: "dd if=/dev/zero bs=1M count=1024 status=none", Stdout: &n})
		if err != nil || out.ExitCode != 0 || n != 1<<30 {
			b.Fatal(out.ExitCode, n, err)
		}
	}
}

// BenchmarkExecGiBStdin copies 1 GiB from a reader (not a file) into the
// command's standard input; compare with BenchmarkBareGiBDD (dd alone).
func BenchmarkExecGiBStdin(b *testing.B) {
	r := NewRunner(Limits{})
	b.SetBytes(1 << 30)
	for b.Loop() {
		out, err := r.Exec(context.Background(), Request{
			Command: "dd of=/dev/null bs=1M status=none",
			Stdin:   io.LimitReader(zeros{}, 1<<30),
		})
		if err != nil || out.ExitCode != 0 {
			b.Fatal(out, err)
		}
	}
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
