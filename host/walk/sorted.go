package walk

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"
)

// A walk with Options.MaxEntries or Options.After is sequential and
// sorted: one goroutine lists the tree depth first, each directory's
// entries in the byte order of their names, a directory's entry followed
// at once by everything below it. Put otherwise, entries come in the order
// of their paths compared name by name, the order of "find | sort" with
// the separator sorting before every other byte. That order is total and
// needs nothing but the paths, so a walk can stop after any entry and a
// later one resume after it (Options.After) and deliver exactly the
// entries that sort after it, whatever was created or removed meanwhile.
//
// A directory is never held whole. It is read once for its first
// sortedPart entries in that order (those the rules leave in, past the
// cursor), kept in a bounded heap while the directory is read a part at a
// time; those are delivered (each subdirectory walked as it comes), and
// only when they are used up and the limit is not reached is the
// directory read again for the next ones. With MaxEntries the heap holds
// no more than the entries still to deliver, plus one to tell whether the
// limit cut the walk (Options.OnCut).

// sortedPart is the most entries of one directory a sorted walk holds at
// once: 16,384 names of some 20 bytes and their verdicts, about 1 MiB. A
// walk that needs more of a directory reads it again (each reading of a
// million-entry directory is a few hundred milliseconds), so a limit of
// 50,000 reads such a directory four times at most.
const sortedPart = 1 << 14

// ErrInvalidAfter is what a walk returns for an Options.After that is not
// a relative path of plain names ("", an absolute path, or one with an
// empty, "." or ".." component).
var ErrInvalidAfter = errors.New("walk: invalid resume point")

// splitAfter checks Options.After and splits it into names.
func splitAfter(after string) ([]string, error) {
	if after == "" {
		return nil, nil
	}
	parts := strings.Split(after, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.IndexByte(p, 0) >= 0 {
			return nil, fmt.Errorf("%w: %q (want a path relative to the walk's start, names separated by /)", ErrInvalidAfter, after)
		}
	}
	return parts, nil
}

// sortedCand is one entry a sorted walk keeps for delivery.
type sortedCand struct {
	name string // its own string (the directory buffer is reused)
	pick
	isLink bool // a followed link to a directory: reopened when entered
}

// candHeap is a max-heap by name: the largest kept name is at 0, the one
// to drop when a smaller name comes and the heap is full.
type candHeap []sortedCand

func (h candHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p].name >= h[i].name {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (h candHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].name > h[l].name {
			m = r
		}
		if h[i].name >= h[m].name {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// want is how many entries of a directory a sorted walk keeps at once:
// those still to deliver plus one (to tell a cut), at most sortedPart.
func (w *walker) want() int {
	if w.opts.MaxEntries <= 0 {
		return sortedPart
	}
	return int(min(int64(w.opts.MaxEntries)-w.count.Load()+1, sortedPart))
}

// sortedDir is dir for a sequential, sorted walk (see above). after is
// what is left of Options.After below this directory: its first name is
// the entry of h to resume after (entered, not delivered, when more names
// follow it or it is a directory), nil for the whole directory.
func (w *walker) sortedDir(h dirHandle, abs, name string, depth int, pctx *dirCtx, chain *idChain, up upIndex, after []string) {
	if w.stopped.Load() {
		h.close()
		return
	}
	chain, ok := w.enterChain(h, abs, chain)
	if !ok {
		return
	}
	defer h.closeQuick(!w.cold.Load())
	buf := dirBufPool.Get().(*dirBuf)
	defer func() {
		buf.release()
		dirBufPool.Put(buf)
	}()
	// A page that resumes in this directory may find its sorted listing
	// kept (listing.go): the directory's stamp comes before its reading.
	var st stampAt
	if len(after) > 0 {
		st = stampNow(h)
	}
	ents, eof, err := w.sortedRead(h, abs, buf)
	if err != nil {
		w.problem(abs, err)
	}
	d := w.newDirRun(h, abs, name, depth, pctx, up, ents, eof)
	var bb *batchBuf
	if w.opts.Batch != nil {
		bb = batchBufPool.Get().(*batchBuf)
		defer func() {
			w.flushBatch(bb)
			if cap(bb.paths) <= 1<<20 {
				batchBufPool.Put(bb)
			}
		}()
	}
	// The names at or below lower are behind the walk: the resume point's
	// at first, then the last one delivered.
	lower, hasLower := "", false
	if len(after) > 0 {
		lower, hasLower = after[0], true
	}
	var lst *listingIter // the directory's sorted listing, when one is used
	if st.ok && !eof {
		var l *dirListing
		if l, ents, eof = w.listingFor(h, abs, buf, st, ents, false); l != nil {
			lst = l.iter(lower)
		}
	}
	for round := 0; ; round++ {
		if round > 0 && lst == nil {
			st = stampNow(h)
			if err := rewind(h, buf); err != nil {
				w.problem(abs, err)
				return
			}
			if ents, eof, err = w.sortedRead(h, abs, buf); err != nil {
				w.problem(abs, err)
			}
			if st.ok && !eof {
				// This walk needs the directory a second time: its listing
				// saves reading it once per sortedPart entries.
				var l *dirListing
				if l, ents, eof = w.listingFor(h, abs, buf, st, ents, true); l != nil {
					lst = l.iter(lower)
				}
			}
		}
		k := w.want()
		var resume *sortedCand
		// A directory read whole in one go (eof: most are) holds at most
		// len(ents) candidates: a heap of 256 for each (about 8 KiB,
		// cleared) cost a tree of small directories more than the rest of
		// its walk allocated.
		capHint := min(k, 256)
		if eof {
			capHint = min(capHint, len(ents))
		}
		cands := candHeap(make([]sortedCand, 0, capHint))
		if lst != nil {
			// The listing is sorted: the next k names the rules leave in.
			for i := 0; len(cands) < k; i++ {
				n, t, ok := lst.cur()
				if !ok {
					break
				}
				if i&127 == 127 {
					if w.stopped.Load() {
						return
					}
					if err := w.ctx.Err(); err != nil {
						w.halt(err)
						return
					}
				}
				if hasLower && n <= lower {
					if round == 0 && n == lower && (len(after) > 1 || t != typeFile) {
						if p, ok := d.judge(n, t); ok {
							c := w.keep(n, p)
							resume = &c
						}
					}
					lst.next()
					continue
				}
				if p, ok := d.judge(n, t); ok {
					cands = append(cands, w.keep(n, p))
				}
				lst.next()
			}
		}
		for i := 0; lst == nil; {
			for j := range ents {
				if i++; i&127 == 0 {
					if w.stopped.Load() {
						return
					}
					if err := w.ctx.Err(); err != nil {
						w.halt(err)
						return
					}
				}
				n := ents[j].name
				if hasLower && n <= lower {
					if round == 0 && n == lower && (len(after) > 1 || ents[j].typ != typeFile) {
						if p, ok := d.judge(n, ents[j].typ); ok {
							c := w.keep(n, p)
							resume = &c
						}
					}
					continue
				}
				if len(cands) == k && n >= cands[0].name {
					continue // the heap holds k names before it
				}
				p, ok := d.judge(n, ents[j].typ)
				if !ok {
					continue
				}
				c := w.keep(n, p)
				if len(cands) < k {
					cands = append(cands, c)
					cands.up(len(cands) - 1)
				} else {
					cands[0] = c
					cands.down(0)
				}
			}
			if eof {
				break
			}
			if ents, eof, err = w.sortedRead(h, abs, buf); err != nil {
				w.problem(abs, err)
			}
		}
		if lst == nil {
			slices.SortFunc(cands, func(a, b sortedCand) int { return strings.Compare(a.name, b.name) })
		}
		if resume != nil && resume.isDir && d.descend {
			// The resume point is a directory: what is below it comes
			// after it, the rest of the cursor (if any) inside.
			if bb != nil {
				w.flushBatch(bb)
			}
			w.enterSorted(d, *resume, chain, after[1:])
		}
		done := w.ctx.Done()
		for _, c := range cands {
			if w.stopped.Load() {
				return
			}
			select {
			case <-done:
				w.halt(w.ctx.Err())
				return
			default:
			}
			if w.opts.MaxEntries > 0 && w.count.Load() >= int64(w.opts.MaxEntries) {
				// One entry more than the limit exists: the walk is cut.
				if bb != nil {
					w.flushBatch(bb)
				}
				w.cut.Store(true)
				w.stopped.Store(true)
				return
			}
			w.count.Add(1)
			enter := c.isDir && d.descend
			if bb != nil {
				off := len(bb.paths)
				bb.paths = append(append(bb.paths, d.prefix...), c.name...)
				p := unsafe.String(&bb.paths[off], len(bb.paths)-off)
				bb.ents = append(bb.ents, Entry{Path: p, Depth: d.childDepth, IsDir: c.isDir})
				if enter || len(bb.ents) >= 1024 {
					w.flushBatch(bb)
				}
			} else if err := w.fn(Entry{Path: d.prefix + c.name, Depth: d.childDepth, IsDir: c.isDir}); err != nil {
				w.halt(err)
				return
			}
			if enter {
				w.enterSorted(d, c, chain, nil)
			}
		}
		if len(cands) < k {
			return // the directory is used up
		}
		lower, hasLower = cands[len(cands)-1].name, true
	}
}

// keep is the candidate for entry n judged p: its name copied out of the
// directory buffer, and a followed link's directory closed (reopened if
// it is entered: a sorted walk may keep thousands of candidates).
func (w *walker) keep(n string, p pick) sortedCand {
	c := sortedCand{name: strings.Clone(n), pick: p}
	if p.linked != invalidHandle {
		p.linked.close()
		c.linked, c.isLink = invalidHandle, true
	}
	return c
}

// enterSorted walks the subdirectory c of d, after the names in after.
func (w *walker) enterSorted(d *dirRun, c sortedCand, chain *idChain, after []string) {
	if w.stopped.Load() {
		return
	}
	sd := pendingDir{name: c.name, path: d.prefix + c.name, trackedOnly: c.enterTracked}
	var ch dirHandle
	if c.isLink {
		lh, ok := openLinkedDir(w.c.Jail, d.h, c.name, sd.path)
		if !ok {
			return // no longer a link to a directory
		}
		ch = lh
	} else {
		var err error
		if ch, err = w.openSub(d.h, sd, fdBackoff<<fdRetries); err != nil {
			w.problem(sd.path, err)
			return
		}
	}
	w.sortedDir(ch, sd.path, sd.name, d.childDepth, d.subCtx(sd), chain, d.upIndex(), after)
}
