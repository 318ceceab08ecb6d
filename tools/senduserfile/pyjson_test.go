package senduserfile

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestPyReencodeAgreesWithPython: pyReencode(x) is what
// json.dumps(json.loads(x)) prints (python3 is the oracle).
func TestPyReencodeAgreesWithPython(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	cases := []string{
		`1`, `-0`, `0`, `-12`, `123456789012345678901234567890`, `1.0`, `1.50`, `-0.0`, `0.0`, `1e5`, `1E5`, `1e-5`,
		`1.5e-5`, `0.0001`, `0.00001`, `1e15`, `1e16`, `1e22`, `123456789012345678.0`, `1e400`, `-1e400`, `1e-400`,
		`0.1`, `2.5e-7`, `5e-324`, `1.7976931348623157e308`, `3.14159265358979323846`, `100`, `1e2`, `12.5e1`,
		`true`, `false`, `null`, `""`, `"a"`, `"\u00e9"`, `"é"`, `"\ud83d\ude00"`, `"😀"`, `"\ud800"`, `"\udc00x"`,
		`"\ud800\u0041"`, `"\/"`, `"\"\\\b\f\n\r\t"`, `"\u0001\u001f\u007f"`, `"\u0041"`, `"<script>&"`, `"\u2028"`,
		`{}`, `[]`, `{ "a" : 1 , "b":[ 1,2 , {"c":null}] }`, `{"a":1,"b":2,"a":3}`, `{"\u0061":1,"a":2}`,
		`[[],{},[{}]]`, ` [ 1.0 , "x" ] `, `{"k":{"k":{"k":1e1}}}`,
	}
	in, _ := json.Marshal(cases)
	cmd := exec.Command("python3", "-c", `import json, sys
print(json.dumps([json.dumps(json.loads(c)) for c in json.load(sys.stdin)]))`)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if got := string(pyReencode([]byte(c))); got != want[i] {
			t.Errorf("%s: %s; python: %s", c, pyReencode([]byte(c)), want[i])
		}
	}
}
