// Package senduserfile stages the files a SendUserFile call names into the
// session's outbox, so that a Claude Code Remote Control client, which is
// served only files under the session's working directory, can open them.
//
// It is the Go form of a Python PreToolUse hook ("stage-user-files") and
// keeps its contract: the same input, the same output and the same files on
// disk. [Hook] is that hook (the agent-host hook subcommand); [Tool] is the
// same staging as a library tool for the tools package; [Stage] is the
// staging itself.
//
// # What is staged
//
// Each string entry of tool_input.files is expanded like Python's
// os.path.expanduser, joined to cwd when relative, and made real as
// Python's os.path.realpath does (symbolic links resolved as far as they
// exist; a trailing slash or a missing component does not stop it). A file whose real path lies inside the real path of cwd
// (by whole components), a missing path, a directory and anything that is
// not a regular file are left alone. Every other file is copied to
//
//	<cwd>/.agent-harness/outbox/<digest>/<basename of its real path>
//
// where digest is the first 16 hex digits of the SHA-256 of
// "realpath\x00size\x00mtime_ns\x00ctime_ns", and its entry is replaced by
// that path. An unchanged file sent again reuses its copy; a rewritten one
// (any change of size, mtime or ctime) gets a new folder, and the old copy
// stays as it was. The outbox holds a .gitignore of "*" so that no copy shows
// in git status, and digest folders untouched for 14 days are removed after a
// call that staged something. An empty digest folder (what a staging that
// failed, or was killed before its copy was in place, leaves) is removed by
// the end of the next call that reaches the outbox. A file that cannot be staged (over the byte
// budget or the deadline of the call, an error, a symbolic link in the
// outbox) is "kept": its entry is left as it was and named in the message.
//
// # Guarantee
//
// Every write into the outbox (directories, .gitignore, copies, touches,
// removals) is a Host file operation with host.Options.NoFollow: it goes
// through the host's jail and its one atomic writer (package host/fs), and
// a symbolic link anywhere on the way from cwd (at .agent-harness, outbox,
// .gitignore, a digest folder or a target), planted before or while a call
// runs, is refused, never followed: that file is kept (ErrSymlink) and
// nothing is written outside the working directory. A copy is written by
// the host's writer (an unnamed temporary file on Linux, else one named
// host.TempPrefix..., synced, then put in place in one step, mode 0600 as
// the script's mkstemp gives), so a reader, or a second process staging
// the same file at the same time, sees a whole copy or none, and a killed
// or failed copy leaves nothing that lasts. A source that changes while it
// is copied (its size, mtime or ctime differ afterwards) is refused before
// its copy is put in place and copied again under its new digest, or
// kept. The .gitignore is created exclusively: one already there is kept.
//
// The files are split by concern: stage.go is the staging (on a
// *host.Host: there is no staging without one), source.go how sources are
// found and judged, hook.go, decisions.go and jsontext.go the Claude Code
// hook contract (the JSON in and out, byte for byte as the script, and the
// decision log), tool.go the tools.Tool.
//
// # Not guaranteed
//
// Without Options.OpenSource (the hook), the source is outside the jail by
// definition and is read with plain operating-system calls through its real
// path: a symbolic link swapped into that path between the resolution and
// the open is followed (the file read is still the one stat'ed and digested,
// since both come from the open descriptor), and the real path recorded in
// the digest and in File.Source may then name another file than the one
// copied. With OpenSource, the source is opened once, by it, and everything
// Stage learns about it comes from that descriptor; what may be opened is
// the opener's guarantee (the MCP server's opens with Host.OpenFile, inside
// the roots). Touching and pruning digest folders are not supported on
// Windows yet (the host's Touch and RemoveTree): there a reused copy's
// folder keeps its time and old folders stay.
package senduserfile
