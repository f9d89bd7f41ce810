package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	p := defaultParams()
	flag.IntVar(&p.Commits, "commits", p.Commits, "commits")
	flag.IntVar(&p.Files, "files", p.Files, "files")
	flag.IntVar(&p.Tags, "tags", p.Tags, "tags")
	flag.IntVar(&p.LargeKiB, "large-kib", p.LargeKiB, "large")
	flag.Parse()
	cache, _ := os.UserCacheDir()
	dir, b, err := cachedRepository(context.Background(), filepath.Join(cache, "glmcp"), p)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(dir, b.Head, b.Generate, b.Repack, b.PackBytes)
}
