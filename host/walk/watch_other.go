//go:build !linux

package walk

// watcher is inert off Linux: every file the Cache depends on is re-checked
// by stat once per Recheck interval.
type watcher struct{}

func (w *watcher) active() bool                                      { return false }
func (w *watcher) open(c *Cache)                                     {}
func (w *watcher) watchesDir(p string) bool                          { return false }
func (w *watcher) close() error                                      { return nil }
func (w *watcher) poll(c *Cache) bool                                { return false }
func (w *watcher) watchFile(c *Cache, path string, follow bool) bool { return false }
func (w *watcher) reset(c *Cache)                                    {}
