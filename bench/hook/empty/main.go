// Command empty does nothing: the benchmark runs it as the floor under any
// Go program's start-up on the machine at hand.
package main

func main() {}
