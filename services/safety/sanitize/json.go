package sanitize

// JSON cleans the string values of doc, a valid JSON document: each value
// loses its hidden characters and HTML comments (counted in removed),
// except a value keep says is code (keep(key), key the name of the member
// holding it, or of the member holding the array it is in; "" at the top):
// that one is left as it is, its hidden characters counted in flagged.
// Object keys are left alone. A doc that needs no change is returned as it
// is. keep may be nil (nothing is code).
func JSON(doc []byte, keep func(key string) bool) (out []byte, removed, flagged Counts) {
	if !suspicious(doc) {
		return doc, Counts{}, Counts{}
	}
	var stack []frame
	out = make([]byte, 0, len(doc))
	for i := 0; i < len(doc); {
		b := doc[i]
		switch b {
		case '{', '[':
			key := ""
			if n := len(stack); n > 0 {
				key = stack[n-1].key
			}
			stack = append(stack, frame{object: b == '{', expectKey: b == '{', key: key})
			out = append(out, b)
			i++
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			out = append(out, b)
			i++
		case ':', ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].expectKey = b == ','
			}
			out = append(out, b)
			i++
		case '"':
			end := stringEnd(doc, i)
			seg := doc[i+1 : end]
			n := len(stack)
			switch {
			case n > 0 && stack[n-1].object && stack[n-1].expectKey:
				stack[n-1].key = string(seg)
				out = append(out, doc[i:end+1]...)
			case keep != nil && keep(keyOf(stack, n)):
				clean(nil, seg, true, true, &flagged)
				out = append(out, doc[i:end+1]...)
			default:
				out = append(out, '"')
				out = clean(out, seg, true, false, &removed)
				out = append(out, '"')
			}
			i = end + 1
		default:
			out = append(out, b)
			i++
		}
	}
	if removed.Total() == 0 {
		return doc, removed, flagged
	}
	return out, removed, flagged
}

// frame is an object or array being read: for an object, whether a key
// comes next and the last key read; for an array, the key of the member
// holding it.
type frame struct {
	object, expectKey bool
	key               string
}

// keyOf is the key a string value read in the top frame of stack (n
// frames) belongs to.
func keyOf(stack []frame, n int) string {
	if n == 0 {
		return ""
	}
	return stack[n-1].key
}

// stringEnd returns the index of the quote closing the JSON string that
// starts at doc[start] (len(doc)-1 when it is not closed, which a valid
// document never is).
func stringEnd(doc []byte, start int) int {
	for i := start + 1; i < len(doc); i++ {
		switch doc[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(doc) - 1
}
