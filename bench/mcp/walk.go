package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A probe is one tool timed by walkBench, in its own server process.
type probe struct {
	name string
	tool string // "walk", "directory_tree" (ours) or "reference" (the reference's directory_tree)
	argv func(ws string) []string
}

// walkBench times, interleaved, rounds calls of each probe on the whole
// tree of dir: agent-host's walk (hidden files in, maxEntries 50000), its
// directory_tree (the same arguments) and the reference server's
// directory_tree, each probe one long-lived server process over a raw
// JSON-RPC pipe, after one untimed call each. dir should hold no .git (a
// plain copy of GOROOT, say), so that all list the same set: the
// reference's directory_tree applies no ignore rules. It prints the median
// time from request to the whole reply line, the server CPU per call
// (user+system from /proc over all timed calls), the server's peak RSS,
// the reply sizes and entry counts, and each probe's figures as a ratio of the last one's
// (the reference's, when it is timed).
func walkBench(dir string, probes []probe, rounds int) {
	type proc struct {
		p     probe
		cmd   *exec.Cmd
		in    io.WriteCloser
		out   *bufio.Reader
		call  string
		walls []time.Duration
		cpu   time.Duration
		size  int
		count int
		hwm   int // the server's peak RSS, KiB
		flt   int // minor page faults a call
	}
	var ps []*proc
	for _, pr := range probes {
		argv := pr.argv(dir)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stderr = os.Stderr
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			log.Fatal(err)
		}
		p := &proc{p: pr, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
		io.WriteString(in, initLine)
		if l, err := p.out.ReadString('\n'); err != nil || !strings.Contains(l, `"result"`) {
			log.Fatalf("%s: initialize: %v %q", pr.name, err, l)
		}
		io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		switch pr.tool {
		case "reference":
			p.call = fmt.Sprintf(`{"jsonrpc":"2.0","id":%%d,"method":"tools/call","params":{"name":"directory_tree","arguments":{"path":%q}}}`+"\n", dir)
		default:
			p.call = fmt.Sprintf(`{"jsonrpc":"2.0","id":%%d,"method":"tools/call","params":{"name":%q,"arguments":{"path":%q,"hidden":true,"maxEntries":50000}}}`+"\n", pr.tool, dir)
		}
		ps = append(ps, p)
	}
	id := 10
	callOnce := func(p *proc) (time.Duration, string) {
		id++
		t0 := time.Now()
		io.WriteString(p.in, fmt.Sprintf(p.call, id))
		for {
			l, err := p.out.ReadString('\n')
			if err != nil {
				log.Fatalf("%s: %v", p.p.name, err)
			}
			if strings.HasPrefix(l, `{"jsonrpc":"2.0","method"`) || strings.Contains(l[:min(len(l), 200)], `"method":`) {
				continue // a notification or a request of the server's
			}
			d := time.Since(t0)
			if !strings.Contains(l[:min(len(l), 100)], `"result"`) || strings.Contains(l, `"isError":true`) {
				log.Fatalf("%s: reply %.300s", p.p.name, l)
			}
			return d, l
		}
	}
	for _, p := range ps {
		_, l := callOnce(p)
		p.size = len(l)
		p.count = countEntries(p.p, l)
	}
	before := make([]time.Duration, len(ps))
	fltBefore := make([]int, len(ps))
	for i, p := range ps {
		before[i] = procCPU(p.cmd.Process.Pid)
		fltBefore[i] = procFaults(p.cmd.Process.Pid)
	}
	for r := range rounds {
		for i := range ps {
			p := ps[(i+r)%len(ps)]
			d, _ := callOnce(p)
			p.walls = append(p.walls, d)
		}
	}
	for i, p := range ps {
		p.cpu = (procCPU(p.cmd.Process.Pid) - before[i]) / time.Duration(rounds)
		p.hwm = procHWM(p.cmd.Process.Pid)
		p.flt = (procFaults(p.cmd.Process.Pid) - fltBefore[i]) / rounds
		p.in.Close()
		p.cmd.Wait()
	}
	med := func(ds []time.Duration) time.Duration { s := slices.Clone(ds); slices.Sort(s); return s[len(s)/2] }
	for _, p := range ps {
		fmt.Printf("%-26s of %s: median %7.1f ms (min %.1f, max %.1f), server CPU %6.1f ms and %d page faults a call, peak RSS %d KiB, reply %d bytes, %d entries\n",
			p.p.name, dir, ms(med(p.walls)), ms(slices.Min(p.walls)), ms(slices.Max(p.walls)), ms(p.cpu), p.flt, p.hwm, p.size, p.count)
	}
	if len(ps) > 1 {
		last := ps[len(ps)-1]
		for _, p := range ps[:len(ps)-1] {
			fmt.Printf("%s / %s: wall %.2fx, server CPU %.2fx (%d rounds, interleaved)\n",
				p.p.name, last.p.name, float64(med(p.walls))/float64(med(last.walls)), float64(p.cpu)/float64(last.cpu), rounds)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// countEntries counts the entries of a reply: walk's structured entries,
// or the nodes of directory_tree's JSON tree (its text, ours or the
// reference's).
func countEntries(p probe, line string) int {
	name := p.name
	var m struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent struct {
				Entries []json.RawMessage `json:"entries"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		log.Fatalf("%s: reply: %v", name, err)
	}
	if p.tool == "walk" {
		return len(m.Result.StructuredContent.Entries)
	}
	type node struct {
		Children []node `json:"children"`
	}
	var tree []node
	if len(m.Result.Content) == 0 || json.Unmarshal([]byte(m.Result.Content[0].Text), &tree) != nil {
		log.Fatalf("%s: directory_tree reply is not a tree", name)
	}
	var count func([]node) int
	count = func(ns []node) int {
		n := len(ns)
		for _, c := range ns {
			n += count(c.Children)
		}
		return n
	}
	return count(tree)
}

// procHWM is the peak resident set of process pid so far, in KiB (Linux:
// VmHWM; 0 when it cannot be read).
func procHWM(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// procFaults is the minor page faults of process pid so far (Linux).
func procFaults(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	n, _ := strconv.Atoi(f[7])
	return n
}

// procCPU is the user and system time of process pid so far (Linux).
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / 100) // USER_HZ
}
