package walk

import "context"

// Batch answers many IsIgnored/Check questions as of one moment: the
// Cache's sources (the inotify queue, the Recheck clock, and through them
// the ignore files and the index) are brought up to date once, by the
// first question, and every later question of the Batch is answered from
// that state. It is what Check does inside one call, for a caller that
// resolves its paths one by one between the questions (Host.CheckIgnore).
// A Batch is for one goroutine and a short span; ask a new one for the
// next batch, so that edits made meanwhile are seen.
type Batch struct {
	c     *Cache
	opts  CheckOptions
	b     batch
	vouch bool // CheckIfReal's answer, set through b.real
	asked int  // CheckIfRealRel's questions so far
}

// NewBatch returns a Batch whose answers follow opts.
func (c *Cache) NewBatch(opts CheckOptions) *Batch {
	return &Batch{c: c, opts: opts, b: batch{noRule: opts.VerdictOnly, verdict: opts.VerdictOnly}}
}

// Check is Cache.Check for one path (absolute; a trailing separator marks
// a directory), with the Batch's freshness: it returns the Match and, for
// a path that is not absolute or a repository index that cannot be used
// (wrapping ErrIndexUnsupported or ErrIndexCorrupt, the Match judged
// without it), an error; or ctx's.
func (b *Batch) Check(ctx context.Context, top, path string) (Match, error) {
	b.b.real = nil
	m, _, err := b.c.judge(ctx, top, path, b.opts, false, &b.b)
	return m, err
}

// CheckInDirFd is Check for a path whose parent directory (dir, absolute
// and clean: path's directory part, or for "name/" the directory holding
// name) the caller has just opened as a directory, through the jail: the
// Cache takes dir as existing without looking (one lstat less for each
// directory it meets first). Its answer is Check's as of that open; a dir
// that is not what the path names is a caller's error and gives the
// answer for a path in an existing directory.
//
// fd, unless it is -1, is a descriptor on dir that the caller opened
// through the jail (jail.OpenDirFd) and keeps open until the call
// returns. Whatever the Cache must learn of dir itself (its ".git" and
// ".gitignore": existence, identity, contents) it then learns relative to
// fd, with fstatat and openat(O_NOFOLLOW) on one name, not by dir's path:
// one path walk less per look, and what is read is what the jail opened.
// fd is not kept. dir's ancestors are looked at as with fd -1.
func (b *Batch) CheckInDirFd(ctx context.Context, top, path, dir string, fd int) (Match, error) {
	b.b.real = nil
	b.b.knownDir, b.b.knownFd = dir, fd
	m, _, err := b.c.judge(ctx, top, path, b.opts, false, &b.b)
	b.b.knownDir, b.b.knownFd = "", -1
	return m, err
}

// CheckIfReal is Cache.CheckIfReal with the Batch's freshness: ok is true
// only when the watches vouch for every directory from top to path's
// parent; otherwise nothing is judged and the caller must resolve path and
// call Check.
func (b *Batch) CheckIfReal(ctx context.Context, top, path string) (Match, bool, error) {
	if top == "" {
		return Match{}, false, nil
	}
	b.vouch = false
	b.b.real = &b.vouch
	m, _, err := b.c.judge(ctx, top, path, b.opts, true, &b.b)
	b.b.real = nil
	return m, b.vouch, err
}
