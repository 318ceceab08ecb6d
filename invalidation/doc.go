// Package invalidation tells whatever shows or caches the workspace (a file
// tree, an open editor buffer, a search index, git status) which parts of it a
// tool invocation may have changed.
//
// # What a notice promises
//
// A tool invocation is begun with [Publisher.Begin] and ended with
// [Invocation.End], normally in a defer, so that its [Notice] is published
// after the tool's own cleanup on every exit: a normal return, an error, a
// refusal and a panic (the notice is published, then the panic goes on).
// While it runs, whatever changes the workspace records the change into the
// invocation it finds in the context ([FromContext]): [Invocation.Touch] for a
// change that was made and observed (the Host's WriteFile, CreateDir and
// RemoveFile), [Invocation.MayChange] and [Invocation.MayChangeAll] for a
// change that may have happened (a shell command, a user's hook). A notice
// of a command run under the Host's sandbox (on by default) still covers all
// paths, but a subscriber may rely on nothing outside the Host's roots having
// changed: the sandbox confines the command's writes to them (and to its
// private temporary directory).
//
// A notice is a request to refresh, not proof that bytes changed: it covers
// every recorded change (its scope times its paths, or all paths), but it may
// cover more than changed. It can be widened, never narrowed: when in doubt
// (a relative path, too many paths, a subscriber that fell behind) it covers
// all paths. A notice never claims a confirmed change that was only possible:
// Confirmed is true only when every change it covers was observed.
//
// What a notice does not promise: that it lists changes made outside an
// invocation (an editor, another process, a change made by a goroutine the
// tool left running, unless it records into the invocation), or that paths
// are canonical when the recorder did not make them so (the Host does).
//
// # Delivery
//
// A [Publisher] fans notices out to any number of subscribers ([Sink]s). The
// guarantees:
//
//   - Publishing never blocks on a subscriber and never runs subscriber code
//     on the tool's goroutine. Each subscriber has its own goroutine and a
//     bounded queue ([Publisher.QueueLen]).
//   - Nothing is lost: when a subscriber's queue is full, what is queued for
//     it is merged into one wider notice (the union of the scopes, all paths),
//     so a slow or stuck subscriber gets fewer, wider notices, never fewer
//     changes.
//   - Order: every notice gets a sequence number; each subscriber receives,
//     from its first notice on, notices whose ranges [FirstSeq, Seq] follow
//     each other with no gap and no overlap.
//   - A subscriber that panics is recovered and reported
//     ([Publisher.OnPanic]); it and the others go on receiving.
//   - [Publisher.Flush] waits until everything published so far has been
//     delivered; [Publisher.Close] delivers what is queued and stops.
//   - With no publisher (a nil *Publisher) an invocation costs nothing: Begin
//     returns a nil *Invocation, and every method of a nil *Invocation is a
//     no-op. With a publisher that has no subscriber, End builds no notice.
//
// This package imports nothing of the rest of the module; the host package
// records into invocations, and the tools package begins and ends them.
package invalidation
