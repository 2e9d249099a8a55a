// A real S3 server for the tests and benchmarks of URL inputs: gofakes3's in-memory backend, compiled, so that
// the server outpaces the checker it serves (moto, a Python server, is the bottleneck on two cores).
//
// It listens on 127.0.0.1 at an ephemeral port and prints its address as the first line of standard output;
// it stops when its standard input closes, so a test or benchmark that dies leaves no server behind. With
// -latency, every request waits that long before it is served: a store's round trip (tens of milliseconds to a
// cloud bucket, under one on loopback), so that reading many objects concurrently can be measured as it pays off.
//
// GET /-/requests answers the requests served so far, by kind ("GET object", "HEAD object", "list", ...; a JSON
// object), whoever sent them: a test asserts what a read cost on the wire. No bucket name starts with "-".
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

func main() {
	bucket := flag.String("bucket", "", "create this bucket at start")
	latency := flag.Duration("latency", 0, "wait this long before serving each request (a store's round trip)")
	flag.Parse()

	backend := s3mem.New()
	if *bucket != "" {
		if err := backend.CreateBucket(*bucket); err != nil {
			log.Fatalf("creating bucket %s: %v", *bucket, err)
		}
	}
	// No request log: a benchmark's GETs would otherwise cost the server a line each.
	faker := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog()))

	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatalf("listening on 127.0.0.1: %v", err)
	}
	fmt.Println(listener.Addr().String())

	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	handler := counted(faker.Server())
	if *latency > 0 {
		served := handler
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(*latency)
			served.ServeHTTP(w, r)
		})
	}
	server := &http.Server{Handler: handler, ReadHeaderTimeout: 30 * time.Second}
	log.Fatal(server.Serve(listener))
}

// counted serves /-/requests and counts every other request by kind.
func counted(served http.Handler) http.Handler {
	var lock sync.Mutex
	counts := map[string]int{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/-/requests" {
			lock.Lock()
			body, _ := json.Marshal(counts)
			lock.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
			return
		}
		lock.Lock()
		counts[kind(r)]++
		lock.Unlock()
		served.ServeHTTP(w, r)
	})
}

// kind names a request as a test speaks of it: an object's GET, HEAD or PUT, a bucket's listing, or another.
func kind(r *http.Request) string {
	path := strings.Trim(r.URL.Path, "/")
	object := strings.Contains(path, "/")
	switch {
	case r.Method == http.MethodGet && !object:
		return "list"
	case object:
		return r.Method + " object"
	default:
		return r.Method + " " + path
	}
}
