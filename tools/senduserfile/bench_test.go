//go:build linux

package senduserfile_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agenthost/agenthost/tools/senduserfile"
)

// The hook's own work, in process (no start-up): go test -run '^$' -bench
// Hook ./tools/senduserfile. bench/hook measures whole processes.

func BenchmarkHookReused(b *testing.B) {
	e := newEnv(b)
	src := e.file(filepath.Join(e.out, "report.md"), "# report\n")
	in := e.payload(src)
	cfg := senduserfile.HookConfig{Getenv: func(k string) string {
		return map[string]string{"HOME": e.home, "HARNESS_HOME": e.harness}[k]
	}}
	senduserfile.Hook(context.Background(), in, cfg)
	b.ResetTimer()
	for b.Loop() {
		if senduserfile.Hook(context.Background(), in, cfg) == nil {
			b.Fatal("no output")
		}
	}
}

func BenchmarkHookNewCopy(b *testing.B) {
	e := newEnv(b)
	src := e.file(filepath.Join(e.out, "report.md"), "# report\n")
	in := e.payload(src)
	cfg := senduserfile.HookConfig{Getenv: func(k string) string {
		return map[string]string{"HOME": e.home, "HARNESS_HOME": e.harness}[k]
	}}
	n := 0
	for b.Loop() {
		b.StopTimer()
		n++
		t := time.Unix(1_600_000_000+int64(n), 0)
		os.Chtimes(src, t, t)
		if n%100 == 0 { // keep the outbox the size of a busy day's
			os.RemoveAll(filepath.Join(e.cwd, ".agent-harness"))
		}
		b.StartTimer()
		if senduserfile.Hook(context.Background(), in, cfg) == nil {
			b.Fatal("no output")
		}
	}
}
