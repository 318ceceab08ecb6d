// Package mcpserver serves a Host over the Model Context Protocol, so that
// any MCP client (Claude Code, Codex, Cursor, an SDK) gets the Host's jail,
// its git-exact walk, its exec limits and SendUserFile staging as tools, and
// a live feed of what those tools changed as resource updates.
//
// # Guarantee
//
// Every tool is a thin adapter over one or a few Host calls: what a tool can
// reach is what the Host can reach. Under the Jailed policy no tool reads,
// writes, lists or moves anything outside the roots, whatever "..", absolute
// path, "~" or symbolic link a model puts in a path (see package host/jail).
// A refused or failed operation is a tool result with isError set and a
// message a model can act on (the roots it would have to be in, what exists
// near a missing path), never a protocol error and never a crashed server.
//
// Every tool call runs inside one invalidation invocation (through a
// tools.Invoker), so what it changed is published as a notice. The server
// maps notices onto MCP resource subscriptions: a client that subscribed to
// a file:// resource (a file, or a directory, which covers everything under
// it) receives notifications/resources/updated when a notice covers it, and
// every subscription is updated by a notice that covers all paths (a shell
// command). Delivery runs on its own goroutine: a tool call never waits for
// a notification to be written, and what a slow client cannot take in time
// is merged into wider notices (see package invalidation). Over stdio the
// notifications share one pipe with the results, so a client that stops
// reading altogether stalls both.
//
// send_user_file stages only files inside the roots (the staging itself,
// package tools/senduserfile, would copy any readable file into the
// workspace, where read_file could then read it), reading each source
// through a descriptor the jail opened. move_file is Host.Rename: it
// renames between two directories opened through the jail and never
// replaces anything.
//
// Over a stream (stdin and stdout) the server reads and writes its own
// lines (LineTransport, docs/adr/0007): a line that is not a valid message
// is answered with a JSON-RPC error and the session goes on, ids come back
// exactly as the client wrote them, and a client that stops reading makes
// the server stop reading too, instead of holding every reply.
//
// # Not guaranteed
//
// The exec and run_capture tools, offered only with Options.AllowExec, run
// commands that the jail does not confine: it decides only where they
// start. Roots that a client adds (roots/list) widen the jail until a later
// roots/list (after roots/list_changed) no longer offers them: then they are
// removed, and calls that start afterwards cannot reach them; the
// command-line roots always stay. Updates are
// asynchronous: a notification may arrive after the result of the call that
// caused it.
//
// # Protocol versions
//
// The server speaks every version the SDK does. Client roots are asked for
// with roots/list, which the 2026-07-28 protocol no longer lets a server send
// on its own; on such a session only the command-line roots apply.
package mcpserver
