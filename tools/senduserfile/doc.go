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
// call that staged something. A file that cannot be staged (over the byte
// budget or the deadline of the call, an error, a symbolic link in the
// outbox) is "kept": its entry is left as it was and named in the message.
//
// # Guarantee
//
// Every write into the outbox (directories, .gitignore, temporary files,
// renames, removals) is made through descriptors of the host's jail
// (package host/jail), relative to the directory that holds it, and never
// follows a symbolic link: the directory is reached by a walk whose
// canonical result must equal the lexical path of the outbox, so a link
// planted at .agent-harness, outbox, .gitignore, a digest folder or a target,
// before or while a call runs, makes that file kept and nothing is written
// outside the working directory. A copy is written to a temporary file
// (".<name>.<random>.part", mode 0600) in its digest folder and renamed over
// the target, so a reader, or a second process staging the same file at the
// same time, sees a whole copy or none; a failed copy leaves no temporary
// file. A source that changes while it is copied (its size, mtime or ctime
// differ afterwards) is copied again under its new digest, or kept.
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
// the opener's guarantee (the MCP server's opens through the jail). Copies are not synced to disk: after a crash a copy may be
// short, and is then replaced (its size no longer matches) the next time the
// file is sent. On Windows the outbox's descriptors are os.Root values, and
// touching and pruning digest folders go by path.
package senduserfile
