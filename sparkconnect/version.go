package sparkconnect

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// ServerVersion asks the server which Spark it runs and returns its
// release, such as "4.2.1" (SQL's version() says the release and the
// commit it was built from).
func (c *Client) ServerVersion(ctx context.Context) (string, error) {
	r, err := c.QueryArrow(ctx, "SELECT version()")
	if err != nil {
		return "", err
	}
	defer r.Release()
	text := ""
	for r.Next() {
		rec := r.RecordBatch()
		if rec.NumCols() == 1 && rec.NumRows() > 0 {
			if s, ok := rec.Column(0).(*array.String); ok && s.IsValid(0) {
				text = s.Value(0)
			}
		}
	}
	if err := r.Err(); err != nil {
		return "", &Error{Op: "ServerVersion", URL: c.URL, Message: "reading version(): " + err.Error()}
	}
	v, ok := ParseVersion(text)
	if !ok {
		return "", &Error{Op: "ServerVersion", URL: c.URL, Message: fmt.Sprintf("version() returned %q, not a Spark release", text)}
	}
	return v, nil
}

var releaseRe = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)\S*`)

// ParseVersion reads the release at the start of Spark's version() text
// ("4.2.1 1a2b3c..." is 4.2.1).
func ParseVersion(text string) (string, bool) {
	m := releaseRe.FindString(strings.TrimSpace(text))
	return m, m != ""
}

// MinorVersion is a release's major.minor ("4.2.1" is "4.2").
func MinorVersion(release string) string {
	m := releaseRe.FindStringSubmatch(release)
	if m == nil {
		return ""
	}
	return m[1] + "." + m[2]
}
