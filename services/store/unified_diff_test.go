package store

import "testing"

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{
			name: "new file",
			old:  "",
			new:  "a\nb\n",
			want: "@@ -0,0 +1,2 @@\n+a\n+b\n",
		},
		{
			name: "deleted file",
			old:  "a\n",
			new:  "",
			want: "@@ -1 +0,0 @@\n-a\n",
		},
		{
			name: "one changed line with context",
			old:  "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
			new:  "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			want: "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
		},
		{
			name: "distant changes make two hunks",
			old:  "a\n1\n2\n3\n4\n5\n6\n7\n8\nz\n",
			new:  "A\n1\n2\n3\n4\n5\n6\n7\n8\nZ\n",
			want: "@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -7,4 +7,4 @@\n 6\n 7\n 8\n-z\n+Z\n",
		},
		{
			name: "near changes share a hunk",
			old:  "a\n1\n2\n3\n4\nz\n",
			new:  "A\n1\n2\n3\n4\nZ\n",
			want: "@@ -1,6 +1,6 @@\n-a\n+A\n 1\n 2\n 3\n 4\n-z\n+Z\n",
		},
		{
			name: "insertion",
			old:  "a\nb\n",
			new:  "a\nx\nb\n",
			want: "@@ -1,2 +1,3 @@\n a\n+x\n b\n",
		},
		{
			name: "identical",
			old:  "a\n",
			new:  "a\n",
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UnifiedDiff(tt.old, tt.new); got != tt.want {
				t.Errorf("UnifiedDiff() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
