package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// server is how to start an MCP server over stdio on a workspace.
type server struct {
	name string
	argv func(ws string) []string
}

// inflight measures calls per second with k calls in flight over one
// stdio session: a raw JSON-RPC client (no SDK on the client side) sends
// a new tools/call as soon as one of the k is answered. Each run is a
// fresh process; write_file replaces one of 64 small files (agent-host
// fsyncs each write, the reference server does not), read_file reads one.
// It prints the median of runs for each server and, with more than one,
// the ratio to the first.
func inflight(dir string, servers []server, k, calls, runs int) {
	type result struct{ write, read, cpu []float64 }
	res := make([]result, len(servers))
	for r := range runs {
		for i, s := range servers {
			ws := filepath.Join(dir, fmt.Sprintf("inflight-%d-%d", i, r))
			if err := os.MkdirAll(ws, 0o755); err != nil {
				log.Fatal(err)
			}
			ws, _ = filepath.EvalSymlinks(ws)
			w, rd, cpu := inflightRun(s, ws, k, calls)
			res[i].write = append(res[i].write, w)
			res[i].read = append(res[i].read, rd)
			res[i].cpu = append(res[i].cpu, cpu)
		}
	}
	med := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
	for i, s := range servers {
		w, rd, cpu := med(res[i].write), med(res[i].read), med(res[i].cpu)
		fmt.Printf("%d in flight, %s: write_file %.0f calls/s, read_file %.0f calls/s, server CPU %.0f µs a call (median of %d runs of %d calls each)", k, s.name, w, rd, cpu, runs, calls)
		if i > 0 {
			fmt.Printf("; %s / %s: write %.2fx, read %.2fx, CPU a call %.2fx", servers[0].name, s.name, med(res[0].write)/w, med(res[0].read)/rd, med(res[0].cpu)/cpu)
		}
		fmt.Println()
	}
}

// inflightRun starts s on ws, initializes, and times calls write_file
// calls then calls read_file calls, k in flight; it returns calls per
// second of each, and the server's CPU time (user and system, start to
// exit) per call: on a loaded machine the rates measure the neighbours
// too, the CPU time the server.
func inflightRun(s server, ws string, k, calls int) (write, read, cpuPerCall float64) {
	argv := s.argv(ws)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = io.Discard
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		cpuPerCall = float64(cpu.Microseconds()) / float64(2*calls)
	}()
	out := bufio.NewReaderSize(stdout, 1<<20)
	io.WriteString(stdin, initLine)
	if l, err := out.ReadString('\n'); err != nil || !strings.Contains(l, `"result"`) {
		log.Fatalf("%s: initialize: %v %q", s.name, err, l)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	l, err := out.ReadString('\n')
	if err != nil {
		log.Fatalf("%s: tools/list: %v", s.name, err)
	}
	readTool := "read_file"
	if strings.Contains(l, `"name":"read_text_file"`) {
		readTool = "read_text_file" // the reference server's current name
	}
	write = runGated(out, stdin, k, calls, s.name, func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"write_file","arguments":{"path":%q,"content":"call %d\n"}}}`+"\n",
			1000+i, filepath.Join(ws, fmt.Sprintf("f%02d.txt", i%64)), i)
	})
	read = runGated(out, stdin, k, calls, s.name, func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"path":%q}}}`+"\n",
			1000+calls+i, readTool, filepath.Join(ws, fmt.Sprintf("f%02d.txt", i%64)))
	})
	return write, read, 0
}

// runGated sends calls requests with k in flight, a new one per reply,
// and returns calls per second.
func runGated(out *bufio.Reader, stdin io.Writer, k, calls int, name string, req func(i int) string) float64 {
	sent := 0
	t0 := time.Now()
	for ; sent < min(k, calls); sent++ {
		io.WriteString(stdin, req(sent))
	}
	for got := 0; got < calls; {
		l, err := out.ReadString('\n')
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal([]byte(l), &m) == nil && m.Method != "" {
			continue // a notification or a request of the server's
		}
		got++
		if !strings.Contains(l, `"result"`) || strings.Contains(l, `"isError":true`) {
			log.Fatalf("%s: reply %.300s", name, l)
		}
		if sent < calls {
			io.WriteString(stdin, req(sent))
			sent++
		}
	}
	return float64(calls) / time.Since(t0).Seconds()
}
