package senduserfile

import (
	"encoding/json"
	"testing"
)

// jsonStringCases are JSON values whose decoding into a string jsonString
// must give exactly as encoding/json does.
var jsonStringCases = []string{
	`""`, `"SendUserFile"`, `"/home/u/a b/c.md"`, `null`, `0`, `-1.5e3`, `true`, `false`,
	`{}`, `[]`, `{"a":"b"}`, `["x"]`, ``, `"`, `"a`,
	`"\"\\\/\b\f\n\r\t"`, `"\u0041\u00e9\u4e2d"`, `"\uD83D\uDE00"`, `"\ud83d\ude00"`,
	`"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`, `"\u0000"`,
	"\"caf\xc3\xa9\"", "\"bad \xff byte\"", "\"\xed\xa0\x80\"", "\"\xf0\x9f\x98\"", "\"" + string(make([]byte, 0)) + "\"",
	`"\'"`, `"\x41"`, `"\u12"`, `"\uZZZZ"`, "\"tab\there\"",
}

// TestJSONStringIsEncodingJSON: for valid and invalid JSON alike,
// jsonString's value and verdict are json.Unmarshal's into a string (on
// valid JSON, which is all the hook gives it; for invalid text only
// whether it fails may differ, and that is not asked).
func TestJSONStringIsEncodingJSON(t *testing.T) {
	for _, c := range jsonStringCases {
		checkJSONString(t, []byte(c))
	}
	// A key the object does not have (memberValue's nil): Unmarshal's
	// "unexpected end of JSON input".
	if s, ok := jsonString(nil); ok {
		t.Errorf("jsonString(nil) = %q, true; want false", s)
	}
}

func checkJSONString(t *testing.T, raw []byte) {
	t.Helper()
	if !json.Valid(raw) {
		return // the hook never asks: its input passed json.Valid
	}
	var want string
	werr := json.Unmarshal(raw, &want)
	got, ok := jsonString(raw)
	if ok != (werr == nil) || (ok && got != want) {
		t.Errorf("jsonString(%q) = %q, %v; encoding/json: %q, %v", raw, got, ok, want, werr)
	}
}

// FuzzJSONString holds jsonString to encoding/json on any valid JSON
// value.
func FuzzJSONString(f *testing.F) {
	for _, c := range jsonStringCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkJSONString(t, raw)
		// The same bytes as a string literal's contents, where they make
		// one.
		q := append(append([]byte{'"'}, raw...), '"')
		checkJSONString(t, q)
	})
}
