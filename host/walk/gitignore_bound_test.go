package walk

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// An ignore file of 200,000 rules (2.7 MB; git reads up to 100 MB) is
// compiled allocating less than 64 MiB in all: the rules' list is sized
// once and their texts are pieces of one copy of the file (growing the
// list and copying each line allocated about 120 MB; 604 MB for a million
// rules). Its answers are the plain matcher's, and the compile takes
// under 10 s (40 s under the race detector; about 1 s on a quiet machine).
func TestParseRulesManyBounded(t *testing.T) {
	var b strings.Builder
	for i := range 200_000 {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "r%d\n", i)
		case 1:
			fmt.Fprintf(&b, "*.e%d\n", i)
		case 2:
			fmt.Fprintf(&b, "# comment %d\n/p%d/q  \n", i, i)
		default:
			fmt.Fprintf(&b, "g%d*x\n", i)
		}
	}
	data := []byte(b.String())
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	rs := parseRules(data, "big", "", false)
	took := time.Since(start)
	runtime.ReadMemStats(&m1)
	alloc := m1.TotalAlloc - m0.TotalAlloc
	t.Logf("%d rules from %d bytes: %v, %d MiB allocated", len(rs.rules), len(data), took, alloc>>20)
	if len(rs.rules) != 200_000 {
		t.Fatalf("%d rules, want 200000", len(rs.rules))
	}
	limit := 10 * time.Second
	if raceEnabled {
		limit *= 4
	}
	if alloc > 64<<20 || took > limit {
		t.Fatalf("%v and %d MiB allocated, want < %v and < 64 MiB", took, alloc>>20, limit)
	}
	plain := &ruleSet{source: "big", plain: true}
	parseRulesAs(plain, data)
	for _, p := range []string{"r0", "x.e1", "p2/q", "p2/q/r", "g3ax", "g3a", "r4", "zz", "e1"} {
		for _, dir := range []bool{false, true} {
			name := p[strings.LastIndexByte(p, '/')+1:]
			if got, want := rs.match(p, name, dir), plain.match(p, name, dir); got != want {
				t.Errorf("match(%q, dir %v) = %d, plain matcher %d", p, dir, got, want)
			}
			if i := rs.match(p, name, dir); i >= 0 && rs.rules[i].text != strings.TrimRight(rs.rules[i].text, " ") {
				t.Errorf("rule %q kept its trailing spaces", rs.rules[i].text)
			}
		}
	}
}
