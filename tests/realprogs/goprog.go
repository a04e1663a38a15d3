// A Go program (make realprogs), built with Debian's golang: the runtime's threads, signals
// and epoll netpoller under this kernel. Goroutines sum in parallel and meet on a channel and
// a WaitGroup, files are written, listed and read back, a timer and a ticker fire, a pipe
// carries bytes between goroutines; it prints nothing that varies.
package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

func main() {
	// Goroutines: 8 workers, their sums on a channel, a WaitGroup for the end.
	results := make(chan int64, 8)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var s int64
			for i := int64(w) * 1000000; i < int64(w+1)*1000000; i++ {
				s += i
			}
			results <- s
		}(w)
	}
	wg.Wait()
	close(results)
	var total int64
	for s := range results {
		total += s
	}
	fmt.Println("sum", total)

	// Files: written by goroutines, listed sorted, read back and hashed.
	dir := "gofiles"
	if err := os.MkdirAll(dir, 0755); err != nil {
		fmt.Println("mkdir:", err)
		os.Exit(1)
	}
	var fw sync.WaitGroup
	for i := 0; i < 20; i++ {
		fw.Add(1)
		go func(i int) {
			defer fw.Done()
			name := filepath.Join(dir, fmt.Sprintf("f%02d", i))
			os.WriteFile(name, []byte(fmt.Sprintf("file %d\n", i)), 0644)
		}(i)
	}
	fw.Wait()
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Println("readdir:", err)
		os.Exit(1)
	}
	names := []string{}
	h := sha256.New()
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		b, _ := os.ReadFile(filepath.Join(dir, n))
		h.Write(b)
	}
	fmt.Println(len(names), "files, sha256", fmt.Sprintf("%x", h.Sum(nil))[:16])
	os.RemoveAll(dir)

	// A timer and a ticker: they fire, in order.
	timer := time.NewTimer(30 * time.Millisecond)
	ticker := time.NewTicker(10 * time.Millisecond)
	ticks := 0
	for done := false; !done; {
		select {
		case <-ticker.C:
			ticks++
		case <-timer.C:
			done = true
		}
	}
	ticker.Stop()
	fmt.Println("timer fired after ticks:", ticks >= 1)

	// A pipe between goroutines (the netpoller waits on it with epoll).
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Println("pipe:", err)
		os.Exit(1)
	}
	go func() {
		for i := 0; i < 100; i++ {
			fmt.Fprintf(w, "line %d\n", i)
		}
		w.Close()
	}()
	b, _ := io.ReadAll(r)
	fmt.Println("pipe carried", len(b), "bytes")
}
