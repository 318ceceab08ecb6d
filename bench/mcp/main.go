// Command mcpbench measures agent-host mcp the way a client sees it:
//
//   - floors: what any Go process, one linking net/http, one linking the MCP
//     SDK, "agent-host help" and "agent-host-mcp --help" take from start to
//     exit on this machine;
//   - start-up: from starting the process to the initialize response, over
//     a pipe, with no SDK on the client side (a raw JSON-RPC line);
//   - round trip: a small read_file tool call through the Go SDK's client
//     over a real agent-host mcp process (CommandTransport), after warm-up.
//
// It builds agent-host and agent-host-mcp (static, as shipped) from this
// checkout first; -bin names an agent-host with its agent-host-mcp beside
// it instead, and -before an earlier build whose start-up runs
// interleaved with this one's. Usage:
//
//   - throughput: calls per second of write_file and read_file with 32
//     in flight over one session, against the reference server
//     (@modelcontextprotocol/server-filesystem) when -ref gives it.
//
//     go run ./bench/mcp [-calls 1000] [-starts 100] [-bin PATH] [-before PATH]
//     go run ./bench/mcp -only-inflight [-inflight 32] [-ref .../server-filesystem/dist/index.js]
//
//   - walk: agent-host's walk and directory_tree tools on a whole tree (a
//     plain copy of GOROOT, no .git) against the reference server's
//     directory_tree (-ref), and an earlier build's directory_tree
//     (-before):
//
//     go run ./bench/mcp -walk DIR [-walk-rounds 15] [-before PATH] -ref .../server-filesystem/dist/index.js
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
	prebuilt := flag.String("bin", "", "an agent-host binary (agent-host-mcp beside it) to measure instead of building them")
	before := flag.String("before", "", "an earlier agent-host build whose start-up to initialize is measured too, interleaved")
	k := flag.Int("inflight", 32, "calls in flight for the throughput figure (0: skip it)")
	kCalls := flag.Int("inflight-calls", 3000, "calls of each tool per throughput run")
	runs := flag.Int("runs", 5, "throughput runs per server (the median is printed)")
	ref := flag.String("ref", "", "the reference server's dist/index.js (@modelcontextprotocol/server-filesystem), run with node for comparison")
	only := flag.Bool("only-inflight", false, "measure only the throughput with -inflight calls in flight")
	walkDir := flag.String("walk", "", "measure only agent-host's walk and directory_tree of `DIR` (whole tree) against the reference server's directory_tree (-ref) of it")
	walkRounds := flag.Int("walk-rounds", 15, "timed calls of each server for -walk")
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
		build := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
			"github.com/agenthost/agenthost/cmd/agent-host", "github.com/agenthost/agenthost/cmd/agent-host-mcp")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
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

	if *walkDir != "" {
		ours := func(b string) func(string) []string {
			return func(ws string) []string { return []string{b, "mcp", "--root", ws} }
		}
		probes := []probe{
			{"walk", "walk", ours(bin)},
			{"directory_tree", "directory_tree", ours(bin)},
		}
		if *before != "" {
			probes = append(probes, probe{"directory_tree (before)", "directory_tree", ours(*before)})
		}
		if *ref != "" {
			probes = append(probes, probe{"reference directory_tree", "reference", func(ws string) []string { return []string{"node", *ref, ws} }})
		}
		walkBench(*walkDir, probes, *walkRounds)
		return
	}
	if *k > 0 {
		servers := []server{{"agent-host", func(ws string) []string { return []string{bin, "mcp", "--root", ws} }}}
		if *ref != "" {
			servers = append(servers, server{"reference", func(ws string) []string { return []string{"node", *ref, ws} }})
		}
		inflight(dir, servers, *k, *kCalls, *runs)
	}
	if *only {
		return
	}
	floors(dir, bin, *starts)
	bins := []string{bin}
	if *before != "" {
		bins = append(bins, *before)
	}
	st, stCPU := startup(bins, ws, *starts)
	for i, b := range bins {
		name := "this build"
		if i > 0 {
			name = "before (" + b + ")"
		}
		fmt.Printf("start-up to initialize response, %s (%d starts): median %s, p90 %s, min %s; CPU of the whole run (start, initialize, exit) median %s\n",
			name, *starts, pct(st[i], 50), pct(st[i], 90), st[i][0], pct(stCPU[i], 50))
	}

	rt := roundTrip(bin, ws, *calls, "")
	fmt.Printf("read_file round trip, protocol %s (%d calls): median %s, p90 %s, p99 %s, min %s\n",
		"2026-07-28", *calls, pct(rt, 50), pct(rt, 90), pct(rt, 99), rt[0])
	rt = roundTrip(bin, ws, *calls, "2025-11-25")
	fmt.Printf("read_file round trip, protocol %s (%d calls): median %s, p90 %s, p99 %s, min %s\n",
		"2025-11-25", *calls, pct(rt, 50), pct(rt, 90), pct(rt, 99), rt[0])
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpbench","version":"1"}}}` + "\n"

// startup times n process starts of each of bins (interleaved) up to the
// initialize response, and returns with them the CPU time (user+sys) of
// each whole run, sorted, per binary: on a loaded machine wall time
// measures the neighbours, CPU time the program.
func startup(bins []string, ws string, n int) (wall, cpu [][]time.Duration) {
	wall = make([][]time.Duration, len(bins))
	cpu = make([][]time.Duration, len(bins))
	for range n {
		for i, bin := range bins {
			w, c := startOnce(bin, ws)
			wall[i] = append(wall[i], w)
			cpu[i] = append(cpu[i], c)
		}
	}
	for i := range bins {
		slices.Sort(wall[i])
		slices.Sort(cpu[i])
	}
	return wall, cpu
}

// startOnce starts bin mcp, sends initialize and returns the time to its
// response and the CPU time of the whole run.
func startOnce(bin, ws string) (wall, cpu time.Duration) {
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
	return d, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// floors times, interleaved, n starts to exit of what every start-up pays
// before the server's own code runs: an empty Go program, one that links
// net/http, one that links the MCP SDK (bench/mcp/floor/...), "agent-host
// help" (every package of agent-host initialized) and "agent-host-mcp
// --help" (every package of the server initialized).
func floors(dir, bin string, n int) {
	type prog struct {
		name string
		argv []string
		wall []time.Duration
		cpu  []time.Duration
	}
	var progs []*prog
	for _, f := range []string{"empty", "nethttp", "sdk"} {
		out := filepath.Join(dir, "floor-"+f)
		build := exec.Command("go", "build", "-o", out, "github.com/agenthost/agenthost/bench/mcp/floor/"+f)
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as agent-host ships
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			log.Fatal("build: ", err)
		}
		progs = append(progs, &prog{name: "floor/" + f, argv: []string{out}})
	}
	progs = append(progs, &prog{name: "agent-host help", argv: []string{bin, "help"}},
		&prog{name: "agent-host-mcp --help", argv: []string{filepath.Join(filepath.Dir(bin), "agent-host-mcp"), "--help"}})
	for range n {
		for _, p := range progs {
			t0 := time.Now()
			cmd := exec.Command(p.argv[0], p.argv[1:]...)
			cmd.Run()
			p.wall = append(p.wall, time.Since(t0))
			p.cpu = append(p.cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
	}
	for _, p := range progs {
		slices.Sort(p.wall)
		slices.Sort(p.cpu)
		fmt.Printf("floor: %-16s start to exit (%d runs): median %s, min %s; CPU median %s\n", p.name, n, pct(p.wall, 50), p.wall[0], pct(p.cpu, 50))
	}
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
