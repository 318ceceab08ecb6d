package netproxy

import (
	"os"
	"strings"
	"testing"
)

// readmeHosts renders hosts.txt as the README's table of the hosts each
// package manager needs.
func readmeHosts() string {
	var b strings.Builder
	b.WriteString("| tool | `--allow-net` entry | why |\n| --- | --- | --- |\n")
	for _, h := range PackageHosts() {
		b.WriteString("| " + h.Tool + " | `" + h.Entry + "` | " + h.Why + " |\n")
	}
	return b.String()
}

// TestReadmeHostsTable: the README's table of package managers' hosts is
// hosts.txt, rendered (the data lives in one place). On a mismatch the
// test prints the table to paste between the README's markers.
func TestReadmeHostsTable(t *testing.T) {
	b, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- hosts.txt: begin -->\n", "<!-- hosts.txt: end -->"
	_, rest, ok := strings.Cut(string(b), begin)
	table, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("the README has no %q ... %q block", begin, end)
	}
	if want := readmeHosts(); table != want {
		t.Errorf("the README's hosts table differs from hosts.txt; it should be:\n%s", want)
	}
}
