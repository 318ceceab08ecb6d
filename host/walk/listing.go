package walk

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// A sorted walk that resumes inside a large directory (a later page of
// MCP list_directory or walk, Options.After), or that needs more of one
// directory than it holds at once (sortedPart), must find the next names
// after a point in name order. Directory order is not name order, so
// without help each such page reads the whole directory: a million
// entries take about 0.3-0.8 s a page, and list_directory lists them in
// 200 pages.
//
// The Cache therefore keeps, for a few large directories, their sorted
// listing (names and the types the directory gave), made while the
// directory is read once and reused by every later page until the
// directory changes. It is compact: the names sorted in runs of at most
// listingRunBytes, each run front-coded (a name keeps only what differs
// from the one before; every listingRestart-th whole, for the binary
// search). A page finds its cursor in each run and merges the runs. A
// million names like "file-0000001" take about 5 MiB.
//
// A listing is keyed by the directory's identity and change stamp
// (device, inode, ctime, mtime, size, link count: dirStamp), taken from
// the open directory before it is read and again after. It is kept only
// when the two agree and the directory's ctime is older than
// listingSettle at the first (a change in the same clock tick as the
// read could otherwise leave the stamp as it was), and used only while a
// stat of the open directory still gives the same stamp. So a page never
// serves a listing of a directory changed since it was read: entries are
// still judged by the rules of the moment, and the order, the cursor and
// its guarantee (every entry present throughout is delivered exactly once)
// are those of the sorted walk without the cache.
//
// Memory: all listings together stay within maxListingBytes (the least
// recently used go first), and what they hold counts in the Cache's
// bound, maxCacheBytes, for everything it keeps (Cache.limit); a directory whose listing would exceed it is
// paged as before, by reading it for each page, and remembered as such
// (until it changes) so that the attempt is not repeated. One listing is
// made at a time per Cache (others wait, or read the directory as before
// if their context ends): making one holds the runs made so far and one
// run's raw names (listingRunBytes).

// maxListingBytes is what the sorted listings of a Cache may hold
// together: a million names of 20 bytes (about 21 MiB front-coded when
// they share little) do not fit and are paged by reading the directory,
// a million of "file-0000001" (about 5 MiB) do. The MCP server's goal is
// 64 MiB of memory in all; the walk's other caches are bounded at 32 MiB.
const maxListingBytes = 16 << 20

// maxListings is the most directories whose listing a Cache keeps.
const maxListings = 8

// listingRunBytes is the raw names sorted at once while a listing is
// made (one run): bigger runs are fewer to merge per page, smaller ones
// less memory while making it.
const listingRunBytes = 1 << 20

// listingRestart is how often a run stores a name whole: a page's binary
// search ends with at most that many names decoded.
const listingRestart = 16

// listingSettle is how long before its reading a directory must have
// last changed (its ctime) for its listing to be kept: more than a clock
// tick (file times move by ticks of up to 10 ms on Linux) and than the
// 2 s of the coarsest file systems.
const listingSettle = 2 * time.Second

// dirStamp is a directory's identity and what changes when an entry is
// added, removed or renamed in it.
type dirStamp struct {
	dev, ino     uint64
	ctime, mtime int64 // nanoseconds
	size         int64
	nlink        uint64
}

// listRun is one sorted run of a listing, front-coded: for each name,
// uvarint(shared prefix with the name before), uvarint(rest's length),
// its type, the rest. restarts are the offsets of the names stored whole.
type listRun struct {
	data     []byte
	restarts []uint32
}

// dirListing is the sorted listing of one directory.
type dirListing struct {
	stamp dirStamp
	runs  []listRun
	n     int // names
	bytes int // what it holds
}

// listingCache is a Cache's listings (zero value: empty).
type listingCache struct {
	mu    sync.Mutex
	lists []*dirListing // least recently used first
	bytes int
	// tooBig are stamps of directories whose listing would not fit (most
	// recent last, a few kept).
	tooBig []dirStamp
	// build is held while a listing is made (one at a time).
	build chan struct{}
	once  sync.Once
	// read counts the entries sorted walks read, for tests.
	read atomic.Int64
	// budget, when set (by tests), replaces maxListingBytes; noSettle
	// keeps listings of directories changed within listingSettle.
	budget   int
	noSettle bool
	// inUse mirrors bytes for the Cache's own bound, which is
	// maxCacheBytes for everything it keeps, listings included: the
	// rules' share is what the listings leave (Cache.limit).
	inUse atomic.Int64
}

// limit is maxListingBytes, or the tests' budget.
func (c *listingCache) limit() int {
	if c.budget > 0 {
		return c.budget
	}
	return maxListingBytes
}

// get is the listing of the directory with stamp st, if one is kept; big
// reports that its listing was found too big to keep.
func (c *listingCache) get(st dirStamp) (l *dirListing, big bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.lists {
		if x.stamp.dev != st.dev || x.stamp.ino != st.ino {
			continue
		}
		if x.stamp != st { // changed since: drop it
			c.bytes -= x.bytes
			c.inUse.Store(int64(c.bytes))
			c.lists = slices.Delete(c.lists, i, i+1)
			break
		}
		c.lists = append(slices.Delete(c.lists, i, i+1), x) // most recent
		return x, false
	}
	return nil, slices.Contains(c.tooBig, st)
}

// put keeps l, dropping the least recently used listings it displaces.
func (c *listingCache) put(l *dirListing) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.lists {
		if x.stamp.dev == l.stamp.dev && x.stamp.ino == l.stamp.ino {
			c.bytes -= x.bytes
			c.lists = slices.Delete(c.lists, i, i+1)
			break
		}
	}
	for len(c.lists) > 0 && (c.bytes+l.bytes > c.limit() || len(c.lists) >= maxListings) {
		c.bytes -= c.lists[0].bytes
		c.lists[0] = nil
		c.lists = c.lists[1:]
	}
	c.lists = append(c.lists, l)
	c.bytes += l.bytes
	c.inUse.Store(int64(c.bytes))
}

// markTooBig remembers that st's listing would not fit.
func (c *listingCache) markTooBig(st dirStamp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.tooBig) >= 16 {
		c.tooBig = slices.Delete(c.tooBig, 0, 1)
	}
	c.tooBig = append(c.tooBig, st)
}

// held is what the kept listings hold, for tests.
func (c *listingCache) held() (n, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.lists), c.bytes
}

// acquire waits for the turn to make a listing; false when ctx ended
// first.
func (c *listingCache) acquire(ctx context.Context) bool {
	c.once.Do(func() { c.build = make(chan struct{}, 1) })
	select {
	case c.build <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (c *listingCache) release() { <-c.build }

// listBuilder makes a listing from a directory's entries, a part at a
// time.
type listBuilder struct {
	limit int         // maxListingBytes
	raw   []byte      // the current run's names
	ents  []rawListed // the current run's entries, into raw
	runs  []listRun
	n     int
	bytes int
	over  bool // the listing passed maxListingBytes
}

// rawListed is one name of the run being made: raw[off:off+n].
type rawListed struct {
	off uint32
	n   uint32
	typ entryType
}

// add takes a part of the directory's entries; false once the listing
// would not fit (the builder then holds nothing).
func (b *listBuilder) add(ents []rawEntry) bool {
	if b.over {
		return false
	}
	for _, e := range ents {
		if len(b.raw)+len(e.name) > listingRunBytes && len(b.ents) > 0 {
			if !b.flush() {
				return false
			}
		}
		b.ents = append(b.ents, rawListed{off: uint32(len(b.raw)), n: uint32(len(e.name)), typ: e.typ})
		b.raw = append(b.raw, e.name...)
	}
	return true
}

// flush sorts the current run and front-codes it.
func (b *listBuilder) flush() bool {
	if len(b.ents) == 0 {
		return true
	}
	raw := b.raw
	name := func(e rawListed) []byte { return raw[e.off : e.off+e.n] }
	slices.SortFunc(b.ents, func(x, y rawListed) int { return bytes.Compare(name(x), name(y)) })
	var r listRun
	r.data = make([]byte, 0, len(raw)/2+3*len(b.ents))
	var prev []byte
	k := 0
	for i, e := range b.ents {
		n := name(e)
		if i > 0 && bytes.Equal(n, prev) {
			continue // a name read twice (the directory changed meanwhile)
		}
		shared := 0
		if k%listingRestart == 0 {
			r.restarts = append(r.restarts, uint32(len(r.data)))
		} else {
			for shared < len(n) && shared < len(prev) && n[shared] == prev[shared] {
				shared++
			}
		}
		r.data = binary.AppendUvarint(r.data, uint64(shared))
		r.data = binary.AppendUvarint(r.data, uint64(len(n)-shared))
		r.data = append(r.data, byte(e.typ))
		r.data = append(r.data, n[shared:]...)
		prev = n
		k++
	}
	r.data = slices.Clip(r.data)
	r.restarts = slices.Clip(r.restarts)
	b.n += k
	b.bytes += len(r.data) + 4*len(r.restarts) + 64
	b.raw, b.ents = b.raw[:0], b.ents[:0]
	if b.bytes > b.limit {
		b.over = true
		b.runs, b.raw, b.ents = nil, nil, nil
		return false
	}
	b.runs = append(b.runs, r)
	return true
}

// done is the listing made, stamped st; nil if it would not fit.
func (b *listBuilder) done(st dirStamp) *dirListing {
	if !b.flush() {
		return nil
	}
	l := &dirListing{stamp: st, runs: b.runs, n: b.n, bytes: b.bytes + 64}
	b.runs, b.raw, b.ents = nil, nil, nil
	return l
}

// runIter reads one run in order.
type runIter struct {
	r    *listRun
	off  int    // of the next name
	name []byte // the current name
	typ  entryType
	ok   bool // name is a name of the run (not past its end)
}

// next moves to the next name of the run.
func (it *runIter) next() {
	d := it.r.data
	if it.off >= len(d) {
		it.ok = false
		return
	}
	shared, k := binary.Uvarint(d[it.off:])
	it.off += k
	rest, k := binary.Uvarint(d[it.off:])
	it.off += k
	it.typ = entryType(d[it.off])
	it.off++
	it.name = append(it.name[:shared], d[it.off:it.off+int(rest)]...)
	it.off += int(rest)
	it.ok = true
}

// restartName is the name stored whole at restart i.
func (r *listRun) restartName(i int) string {
	d := r.data[r.restarts[i]:]
	_, k := binary.Uvarint(d) // shared: 0
	rest, k2 := binary.Uvarint(d[k:])
	s := d[k+k2+1 : k+k2+1+int(rest)]
	return unsafe.String(unsafe.SliceData(s), len(s))
}

// seek moves to the first name of the run at or after lower.
func (it *runIter) seek(lower string) {
	r := it.r
	// The first restart whose name is at or after lower: the names before
	// lower start at most one restart earlier.
	i := sort.Search(len(r.restarts), func(i int) bool { return r.restartName(i) >= lower })
	if i > 0 {
		i--
	}
	it.off, it.name = 0, it.name[:0]
	if len(r.restarts) > 0 {
		it.off = int(r.restarts[i])
	}
	for it.next(); it.ok && string(it.name) < lower; it.next() {
	}
}

// listingIter reads a listing in name order, merging its runs.
type listingIter struct {
	its  []*runIter // a min-heap by current name of the runs not used up
	last []byte     // scratch for next
}

// iter is an iterator of l at its first name at or after lower.
func (l *dirListing) iter(lower string) *listingIter {
	li := &listingIter{its: make([]*runIter, 0, len(l.runs))}
	for i := range l.runs {
		it := &runIter{r: &l.runs[i]}
		if it.seek(lower); it.ok {
			li.its = append(li.its, it)
		}
	}
	for i := len(li.its)/2 - 1; i >= 0; i-- {
		li.down(i)
	}
	return li
}

// cur is the current name (valid until next) and its type; ok false at
// the end.
func (li *listingIter) cur() (name string, t entryType, ok bool) {
	if len(li.its) == 0 {
		return "", 0, false
	}
	it := li.its[0]
	return unsafe.String(unsafe.SliceData(it.name), len(it.name)), it.typ, true
}

// next moves past the current name (and any other run's copy of it).
func (li *listingIter) next() {
	if len(li.its) == 0 {
		return
	}
	li.last = append(li.last[:0], li.its[0].name...)
	for len(li.its) > 0 && bytes.Equal(li.its[0].name, li.last) {
		it := li.its[0]
		if it.next(); !it.ok {
			n := len(li.its) - 1
			li.its[0] = li.its[n]
			li.its = li.its[:n]
		}
		if len(li.its) > 0 {
			li.down(0)
		}
	}
}

func (li *listingIter) down(i int) {
	h := li.its
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && bytes.Compare(h[r].name, h[l].name) < 0 {
			m = r
		}
		if bytes.Compare(h[i].name, h[m].name) <= 0 {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// stampAt is a directory's stamp and when it was taken.
type stampAt struct {
	dirStamp
	at time.Time
	ok bool
}

// stampNow is h's stamp now (ok false when it cannot be had).
func stampNow(h dirHandle) stampAt {
	at := time.Now()
	st, ok := stampOf(h)
	return stampAt{dirStamp: st, at: at, ok: ok}
}

// settled reports that the directory of s had not changed for
// listingSettle when s was taken.
func (c *listingCache) settled(s stampAt) bool {
	return s.ok && (c.noSettle || s.ctime < s.at.Add(-listingSettle).UnixNano())
}

// listingFor is the sorted listing of h (path abs), stamped st before
// ents, its first part, was read (more follow). It is the Cache's when
// one was kept for st; otherwise, when build is set or the directory has
// settled, one is made now from ents and the rest of h, and kept if the
// directory did not change meanwhile (see listing.go). nil when there is
// none to be had (too big to keep, or the walk stopped): then the
// directory is rewound and ents and eof are its first part again.
func (w *walker) listingFor(h dirHandle, abs string, buf *dirBuf, st stampAt, ents []rawEntry, build bool) (*dirListing, []rawEntry, bool) {
	lc := &w.c.listings
	l, big := lc.get(st.dirStamp)
	if l != nil {
		return l, ents, false
	}
	if big || !build && !lc.settled(st) {
		return nil, ents, false
	}
	if !lc.acquire(w.ctx) {
		return nil, ents, false
	}
	defer lc.release()
	if l, _ := lc.get(st.dirStamp); l != nil { // made while this one waited
		return l, ents, false
	}
	b := listBuilder{limit: lc.limit()}
	ok, eof := b.add(ents), false
	for ok && !eof {
		if w.stopped.Load() || w.ctx.Err() != nil {
			ok = false
			break
		}
		var err error
		if ents, eof, err = w.sortedRead(h, abs, buf); err != nil {
			w.problem(abs, err)
			st.ok = false // a listing with a gap is not kept
		}
		ok = b.add(ents)
	}
	if ok {
		if l = b.done(st.dirStamp); l != nil {
			if now, sok := stampOf(h); sok && now == st.dirStamp && lc.settled(st) {
				lc.put(l)
			}
			return l, nil, true
		}
	}
	if b.over && lc.settled(st) {
		lc.markTooBig(st.dirStamp)
	}
	b = listBuilder{}
	if err := rewind(h, buf); err != nil {
		w.problem(abs, err)
		return nil, nil, true
	}
	ents, eof, err := w.sortedRead(h, abs, buf)
	if err != nil {
		w.problem(abs, err)
	}
	return nil, ents, eof
}

// sortedRead is read for a sorted walk, counted (listingCache.read).
func (w *walker) sortedRead(h dirHandle, abs string, buf *dirBuf) ([]rawEntry, bool, error) {
	ents, eof, err := w.read(h, abs, buf)
	w.c.listings.read.Add(int64(len(ents)))
	return ents, eof, err
}
