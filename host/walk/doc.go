// Package walk lists a directory tree the way git sees it and answers
// whether one path is ignored, with git's own answer as the specification.
//
// # What it guarantees
//
// Inside a git repository, Walk yields exactly the files
// "git ls-files -co --exclude-standard" lists that exist on disk: the
// untracked files the rules leave plus every tracked file (the index is
// read; a tracked file deleted from disk is not there to list), and, as
// entries of their own, the directories it enters. IsIgnored and Check
// answer as "git check-ignore" does (a tracked path is not ignored), and
// Check names the deciding rule as "git check-ignore -v" does. With
// Options.NoIndex and CheckOptions.NoIndex the index is left out
// ("--no-index"). See docs/adr/0010-walk-index-and-matcher.md. The rules are
// gitignore(5): .gitignore files from the repository root down, each
// relative to its own directory; $GIT_COMMON_DIR/info/exclude; and
// core.excludesFile (default $XDG_CONFIG_HOME/git/ignore or
// ~/.config/git/ignore), in that order of precedence, the last matching
// line of a file winning; an ignored directory is never entered, so
// nothing below it can be re-included and no .gitignore inside it is read;
// core.ignorecase folds ASCII letters; matching is byte-wise.
//
// Outside every repository nothing is ignored. ".git" is never listed,
// and Walk follows no symbolic link unless Options.Follow is set: a link
// is listed as a file and a link to a directory does not match a "dir/"
// pattern. Matching takes time polynomial in the lengths of pattern and
// name, whatever they are (see wildmatch), and the Cache's memory is
// bounded (maxCacheBytes) whatever paths it is asked about.
//
// # Where it parts from git, on purpose
//
// A directory holding a ".git" (a nested repository) is entered, and
// inside it only that repository's own rules apply; git would stop and
// list it as one untracked directory. See
// docs/adr/0002-walk-nested-repositories-and-matcher.md. The walk's
// starting directory is listed even when it is itself ignored, as ripgrep
// lists a directory named on its command line.
//
// With Cache.Jail set, a core.excludesFile, include.path or includeIf path
// that a configuration file inside the jail's roots names outside them is
// taken as a file that does not exist (git would read it), and files
// inside the roots are read only through the jail, so that whoever may
// write inside the roots cannot learn, through IsIgnored, the lines of a
// file outside them. See Jail.
//
// Ignore and configuration files that are not regular files (a FIFO, a
// device) are never read: they hold no rules, as git sees a FIFO
// .gitignore (it reads st_size bytes, which is 0), and no read can wait
// for a writer.
//
// # Order and memory
//
// An unlimited Walk is parallel and delivers entries in no order but
// this: a directory before anything below it. With Options.MaxEntries,
// Options.After or Options.Sorted it is sequential and sorted: paths
// compared name by name, each name byte-wise (depth first, a directory's
// entry followed at once by everything below it), so a limit keeps exactly
// the first N entries of that order and a later walk can resume after any
// entry (After) and list exactly the entries that sort after it. In both
// modes a directory is read and delivered a part at a time and never held
// whole: an unlimited walk holds one part (some 800 entries) per
// directory being read, plus the subdirectories still to enter; a sorted
// walk holds at most the entries still to deliver (and no more than
// 16,384) of each directory on its path, reading a larger directory
// again for its next names. See docs/adr/0021-walk-order-and-cursor.md.
//
// # What it does not promise
//
// The walk is not a snapshot: entries created or removed while it runs
// may or may not appear. On Linux every subdirectory is opened relative to
// its parent's descriptor with O_NOFOLLOW, so a directory swapped for a
// symbolic link mid-walk is refused, not followed; elsewhere the check and
// the open are separate steps and that race is open. Bind mounts and mount
// points inside the tree are crossed. The walked path is not confined to
// any root here: the host facade opens it through the jail and hands the
// descriptor to WalkDir.
//
// On Linux, IsIgnored sees every change to an ignore or config file made
// before the call starts: it is told of changes by inotify and trusts what
// it knows, with no stat at all, until an event arrives; a change racing
// with a call may or may not be seen by that call. Where inotify is unavailable
// or cannot watch a file (other systems, watch limits, a symbolic link on
// the way) it trusts what it last read for up to Cache.Recheck
// (RecheckInterval, one millisecond, by default) before stat'ing again.
// See Cache for the details and for what inotify does not report.
package walk
