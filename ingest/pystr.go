package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
)

// Stringification of non-string JSON values.
//
// The reference evaluator turns every value of a predicted triple into text
// with Python's str() (None becomes ""). kgjudge does the same so that the
// predicted triples, and so the judge prompts and node sets, are byte-for-byte
// the reference's:
//
//	null          -> ""
//	true / false  -> "True" / "False"
//	1, -0, 1e2    -> "1", "0", "100.0"   (ints exact; floats as Python repr)
//	1e16, 1e-5    -> "1e+16", "1e-05"
//	[1, "a"]      -> "[1, 'a']"          (Python repr of the list)
//	{"k": null}   -> "{'k': None}"
//
// Differences: string escapes in nested containers follow Python's repr for
// printable/non-printable characters as approximated by unicode.IsPrint.

// pyStr returns the Python str() of one JSON value, and whether it was a
// JSON string (only non-strings count as stringified).
func pyStr(raw []byte) (string, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false, fmt.Errorf("empty value")
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false, err
		}
		return s, true, nil
	case 'n':
		return "", false, nil
	case 't':
		return "True", false, nil
	case 'f':
		return "False", false, nil
	case '[', '{':
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var b strings.Builder
		if err := pyReprValue(dec, &b); err != nil {
			return "", false, err
		}
		return b.String(), false, nil
	default:
		return pyNumber(string(raw)), false, nil
	}
}

func pyReprValue(dec *json.Decoder, b *strings.Builder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	return pyReprToken(dec, tok, b)
}

func pyReprToken(dec *json.Decoder, tok json.Token, b *strings.Builder) error {
	switch v := tok.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case json.Number:
		b.WriteString(pyNumber(string(v)))
	case string:
		b.WriteString(pyReprString(v))
	case json.Delim:
		switch v {
		case '[':
			b.WriteByte('[')
			first := true
			for dec.More() {
				if !first {
					b.WriteString(", ")
				}
				first = false
				if err := pyReprValue(dec, b); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			b.WriteByte(']')
		case '{':
			// Python dicts keep the first position of a key and its last value.
			var keys []string
			vals := map[string]string{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				var vb strings.Builder
				if err := pyReprValue(dec, &vb); err != nil {
					return err
				}
				if _, ok := vals[k]; !ok {
					keys = append(keys, k)
				}
				vals[k] = vb.String()
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(pyReprString(k))
				b.WriteString(": ")
				b.WriteString(vals[k])
			}
			b.WriteByte('}')
		default:
			return fmt.Errorf("unexpected %v", v)
		}
	}
	return nil
}

// pyNumber renders a JSON number literal as Python's str() of what json.loads
// makes of it: an int when there is no fraction or exponent, else a float.
func pyNumber(lit string) string {
	if !strings.ContainsAny(lit, ".eE") {
		var n big.Int
		if _, ok := n.SetString(lit, 10); ok {
			return n.String()
		}
		return lit
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) && f != 0 {
		return lit
	}
	return pyFloatRepr(f)
}

// pyFloatRepr is Python's repr(float): shortest round-trip digits, fixed
// notation for decimal exponents -4..15, scientific otherwise.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	epos := strings.IndexByte(s, 'e')
	mant, expS := s[:epos], s[epos+1:]
	exp, _ := strconv.Atoi(expS)
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		e := strconv.Itoa(exp)
		if len(e) < 2 {
			e = "0" + e
		}
		return sign + m + "e" + es + e
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}

// pyReprString is Python's repr(str).
func pyReprString(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteByte(q)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || !unicode.IsPrint(r):
			switch {
			case r < 0x100:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r < 0x10000:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
