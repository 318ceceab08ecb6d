package exec

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestNestedRootRunsSerialised: a run on the workspace plants a
// .envrc in a directory that is another run's root; the second run takes
// its baseline meanwhile. After both, the plant must be gone.
func TestNestedRootRunsSerialised(t *testing.T) {
	f := newSBFixture(t)
	sub := filepath.Join(f.ws, "sub")
	outer := f.sandbox()
	inner := f.sandbox()
	inner.Roots = []string{sub}
	var wg sync.WaitGroup
	wg.Go(func() {
		req := f.request(`echo 'touch "$MARK"' > sub/.envrc && sleep 1.5`, outer, "MARK="+f.mark())
		out, err := f.r.Exec(context.Background(), req)
		t.Logf("outer: %v %+v", err, out.Sandbox)
	})
	time.Sleep(700 * time.Millisecond)
	wg.Go(func() {
		req := f.request(`sleep 2`, inner)
		req.Cwd, req.Dir = sub, nil
		out, err := f.r.Exec(context.Background(), req)
		t.Logf("inner: %v %+v", err, out.Sandbox)
	})
	wg.Wait()
	absent(t, filepath.Join(sub, ".envrc"))
}
