package host_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/agenthost/agenthost/host"
)

// An agent's multi-edit tool: several exact replacements of one file, all
// or none, with the diff to show the model. A refusal says which edit and
// why, and errors.Is tells the kind.
func ExampleHost_EditFile() {
	dir, done := project()
	defer done()
	h, err := host.New(host.Config{WorkspaceRoot: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()

	res, err := h.EditFile(ctx, "", "main.go", []host.Edit{
		{OldText: "package main\n", NewText: "package main\n\nfunc main() {}\n"},
		{OldText: "{}", NewText: "{ println(1) }"},
	}, host.EditOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Written, res.Replacements)
	fmt.Print(res.Diff[strings.Index(res.Diff, "@@"):])

	_, err = h.EditFile(ctx, "", "main.go", []host.Edit{{OldText: "func helper()", NewText: "x"}}, host.EditOptions{})
	fmt.Println(errors.Is(err, host.ErrEditNotFound))
	// Output:
	// true 2
	// @@ -1 +1,3 @@
	//  package main
	// +
	// +func main() { println(1) }
	// true
}
