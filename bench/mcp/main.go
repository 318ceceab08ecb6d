// Command mcpbench measures agent-host mcp the way a client sees it:
//
//   - start-up: from starting the process to the initialize response, over
//     a pipe, with no SDK on the client side (a raw JSON-RPC line);
//   - round trip: a small read_file tool call through the Go SDK's client
//     over a real agent-host mcp process (CommandTransport), after warm-up.
//
// It builds agent-host from this checkout first. Usage:
//
//	go run ./bench/mcp [-calls 1000] [-starts 100] [-bin PATH]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	calls := flag.Int("calls", 1000, "read_file calls to time")
	starts := flag.Int("starts", 100, "process starts to time")
	prebuilt := flag.String("bin", "", "an agent-host binary to measure instead of building one")
	flag.Parse()
	log.SetFlags(0)

	dir, err := os.MkdirTemp("", "mcpbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := *prebuilt
	if bin == "" {
		bin = filepath.Join(dir, "agent-host")
		build := exec.Command("go", "build", "-o", bin, "github.com/agenthost/agenthost/cmd/agent-host")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			log.Fatal("build: ", err)
		}
	}
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	if err := os.WriteFile(filepath.Join(ws, "small.txt"), []byte("hello, world\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	base, baseCPU := baseline(bin, *starts)
	fmt.Printf("baseline: agent-host help, start to exit (%d runs): median %s, min %s; CPU (user+sys) median %s\n",
		*starts, pct(base, 50), base[0], pct(baseCPU, 50))
	st, stCPU := startup(bin, ws, *starts)
	fmt.Printf("start-up to initialize response (%d starts): median %s, p90 %s, min %s; CPU of the whole run (start, initialize, exit) median %s\n",
		*starts, pct(st, 50), pct(st, 90), st[0], pct(stCPU, 50))

	rt := roundTrip(bin, ws, *calls, "")
	fmt.Printf("read_file round trip, protocol %s (%d calls): median %s, p90 %s, p99 %s, min %s\n",
		"2026-07-28", *calls, pct(rt, 50), pct(rt, 90), pct(rt, 99), rt[0])
	rt = roundTrip(bin, ws, *calls, "2025-11-25")
	fmt.Printf("read_file round trip, protocol %s (%d calls): median %s, p90 %s, p99 %s, min %s\n",
		"2025-11-25", *calls, pct(rt, 50), pct(rt, 90), pct(rt, 99), rt[0])
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpbench","version":"1"}}}` + "\n"

// startup times n process starts up to the initialize response, and
// returns with them the CPU time (user+sys) of each whole run: on a loaded
// machine wall time measures the neighbours, CPU time the program.
func startup(bin, ws string, n int) (wall, cpu []time.Duration) {
	for range n {
		cmd := exec.Command(bin, "mcp", "--root", ws)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		t0 := time.Now()
		if err := cmd.Start(); err != nil {
			log.Fatal(err)
		}
		io.WriteString(stdin, initLine)
		line, err := bufio.NewReader(stdout).ReadString('\n')
		d := time.Since(t0)
		if err != nil || !strings.Contains(line, `"result"`) {
			log.Fatalf("initialize: %v %q", err, line)
		}
		stdin.Close()
		cmd.Wait()
		wall = append(wall, d)
		cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	slices.Sort(wall)
	slices.Sort(cpu)
	return wall, cpu
}

// baseline times n runs of "agent-host help": the process start and the
// Go runtime's and packages' initialization, which every start-up pays
// before the server's own code runs.
func baseline(bin string, n int) (wall, cpu []time.Duration) {
	for range n {
		t0 := time.Now()
		cmd := exec.Command(bin, "help")
		cmd.Run()
		wall = append(wall, time.Since(t0))
		cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	slices.Sort(wall)
	slices.Sort(cpu)
	return wall, cpu
}

// roundTrip times n read_file calls of a 13-byte file.
func roundTrip(bin, ws string, n int, protocol string) []time.Duration {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "mcp", "--root", ws)},
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "small.txt"}}
	call := func() time.Duration {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, params)
		d := time.Since(t0)
		if err != nil || res.IsError {
			log.Fatalf("read_file: %v %+v", err, res)
		}
		return d
	}
	for range 100 {
		call()
	}
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = call()
	}
	slices.Sort(ds)
	return ds
}

func pct(ds []time.Duration, p int) time.Duration {
	return ds[min(len(ds)-1, len(ds)*p/100)]
}
