// Package archtest holds the architecture tests: rules about the module's
// own source that keep "one resolver" true (no package but host/jail
// resolves symbolic links; nothing above host imports host/jail) and
// the layering of API.md true (imports flow one way: floors, in
// arch_test.go). It has no code; see arch_test.go.
package archtest
