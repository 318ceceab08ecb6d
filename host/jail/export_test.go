package jail

// SetNoOpenat2 switches openat2 off (the portable descriptor walk alone)
// for the external tests, and returns what puts it back.
func SetNoOpenat2(off bool) (restore func()) {
	was := noOpenat2.Load()
	noOpenat2.Store(was || off)
	return func() { noOpenat2.Store(was) }
}
