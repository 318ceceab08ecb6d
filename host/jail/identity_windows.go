package jail

// HeldRoot returns the canonical path of a root that is the directory the
// Location names, or lies beneath it, and "" when there is none. Windows
// has no device and inode through os.Root: the paths are compared, by
// whole components.
func (l *Location) HeldRoot() (string, error) {
	if l.rs == nil {
		return "", nil
	}
	for _, r := range l.rs.list {
		if hasPathPrefix(r.canon, l.Path) {
			return r.canon, nil
		}
	}
	return "", nil
}

// sameDir has no identity to compare on Windows: nil.
func (rs *rootSet) sameDir(d *Dir) *root { return nil }
