package invalidation_test

import (
	"context"
	"fmt"
	"log"

	"github.com/agenthost/agenthost/invalidation"
)

// A subscriber (a file tree, a cache) learns what each tool invocation
// changed or may have changed, once the invocation has ended, on every
// exit path.
func ExamplePublisher_Subscribe() {
	var pub invalidation.Publisher // the zero value is ready
	cancel, err := pub.Subscribe(invalidation.SinkFunc(func(n invalidation.Notice) {
		fmt.Printf("#%d %s: %v all=%v confirmed=%v %v\n", n.Seq, n.Tool, n.Scope, n.All, n.Confirmed, n.Paths)
	}))
	if err != nil {
		log.Fatal(err)
	}
	defer cancel()
	ctx := context.Background()

	// A tool that writes a file (the Host records this itself when the
	// tool writes through it with ctx).
	pub.Run(ctx, "write_file", func(ctx context.Context) error {
		invalidation.FromContext(ctx).Touch(invalidation.ScopeContent, "/work/project/main.go")
		return nil
	})
	// A shell command may have changed anything.
	pub.Run(ctx, "exec", func(ctx context.Context) error {
		invalidation.FromContext(ctx).MayChangeAll(invalidation.ScopeAll, invalidation.CauseTool)
		return fmt.Errorf("exit status 1") // a failed tool still publishes
	})
	// A read changes nothing and publishes nothing.
	pub.Run(ctx, "read_file", func(ctx context.Context) error { return nil })

	pub.Flush(ctx) // wait until the subscriber has seen everything
	// Output:
	// #1 write_file: content all=false confirmed=true [/work/project/main.go]
	// #2 exec: content|tree|git all=true confirmed=false []
}
