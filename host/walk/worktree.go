package walk

import (
	"context"
	"path/filepath"
)

// InWorkTree reports whether dir (an absolute path) lies in a git working
// tree as c sees it: whether a .gitignore in dir would be obeyed by Walk,
// IsIgnored and Check. It is the same discovery they use (a ".git" in dir
// or a directory above it whose git directory has a HEAD; through the
// Jail when c has one), so a caller that wants to know whether the
// Cache's listings will hide something a .gitignore covers asks here, not
// by looking for ".git" itself. A dir that does not exist is judged by the
// deepest directory above it that does. A relative dir gives false.
//
// It opens no inotify descriptor (it uses one that IsIgnored opened, as
// Walk does): watching the directories from "/" down costs far more than
// the few stats of one answer (57 ms for a /tmp of many entries here,
// where the kernel marks every child dentry), and a Host that only runs
// commands should not pay for it.
func (c *Cache) InWorkTree(dir string) bool {
	if !filepath.IsAbs(dir) {
		return false
	}
	dir = cleanAbs(dir)
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.sync(false)
	return c.dirStateForPathIn(context.Background(), dir, now, false, -1).ctx.repo != nil
}
