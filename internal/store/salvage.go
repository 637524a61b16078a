package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// Salvage reads what it can of a damaged database into a new one, for
// `memctl export` to write a bundle from. It never writes the damaged
// file: it works on a copy beside dst. A copy whose first 100 bytes are
// not a SQLite header is given a fresh one (the page size found by
// trying each one SQLite allows). Then the tables a bundle is made of
// (SalvageTables) are copied range by range of rowids; a range that
// cannot be read is halved until the rows that break are found, and
// those are left out and reported. Everything else in the file (jobs,
// history, the search index) is not copied: a bundle does not carry it.

// SalvageTables are the tables whose rows a bundle is made of.
var SalvageTables = []string{"threads", "stage1_outputs", "forgotten_memories"}

// maxFailedReads bounds the reads one table's salvage may spend on ranges
// that fail, so a damaged inner page (a whole subtree out of reach) costs
// seconds, not hours; what is left unread is reported.
const maxFailedReads = 4000

// SalvageReport says what Salvage read and what it left out.
type SalvageReport struct {
	Source string `json:"source"`
	// Empty: the file had no byte to read.
	Empty bool `json:"empty,omitempty"`
	// Unreadable says why nothing of the file could be read.
	Unreadable string `json:"unreadable,omitempty"`
	// HeaderRepaired: the file's header was not SQLite's; the copy read
	// was given a fresh one with this page size.
	HeaderRepaired bool           `json:"header_repaired,omitempty"`
	PageSize       int            `json:"page_size,omitempty"`
	Tables         []SalvageTable `json:"tables"`
}

// SalvageTable is what was read of one table.
type SalvageTable struct {
	Name string `json:"name"`
	Rows int    `json:"rows"`
	// Skipped lists the ranges of rowids that could not be read.
	Skipped []RowRange `json:"skipped,omitempty"`
	// Error says why the table could not be read at all.
	Error string `json:"error,omitempty"`
}

// RowRange is a range of rowids, both ends included.
type RowRange struct {
	First int64 `json:"first"`
	Last  int64 `json:"last"`
}

func (r RowRange) String() string {
	if r.First == r.Last {
		return fmt.Sprint(r.First)
	}
	if r.First <= -1<<62 || r.Last >= 1<<62 {
		return "every rowid from " + fmt.Sprint(r.First)
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}

// Complete reports whether every table was read whole.
func (r SalvageReport) Complete() bool {
	if r.Empty || r.Unreadable != "" {
		return false
	}
	for _, t := range r.Tables {
		if t.Error != "" || len(t.Skipped) > 0 {
			return false
		}
	}
	return true
}

// Salvage copies what can be read of the database at path into a new
// database at dst (a file that must not exist yet), and returns it open.
// The caller closes it and removes dst.
func Salvage(ctx context.Context, path, dst string, opts ...Option) (*Store, SalvageReport, error) {
	rep := SalvageReport{Source: path}
	fresh, err := Open(ctx, dst, opts...)
	if err != nil {
		return nil, rep, err
	}
	fail := func(err error) (*Store, SalvageReport, error) {
		fresh.Close()
		return nil, rep, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fail(err)
	}
	if fi.Size() == 0 {
		rep.Empty = true
		return fresh, rep, nil
	}
	cp := dst + ".damaged-copy"
	defer func() {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			_ = os.Remove(cp + suffix)
		}
	}()
	if err := copyFile(path, cp); err != nil {
		return fail(fmt.Errorf("salvage %s: %w", path, err))
	}
	if err := copyFile(path+"-wal", cp+"-wal"); err != nil && !os.IsNotExist(err) {
		return fail(fmt.Errorf("salvage %s: %w", path, err))
	}
	if err := readableHeader(ctx, cp, &rep); err != nil {
		// Nothing to read from: a bundle of the folder's notes is still
		// worth writing, so this is reported, not returned.
		rep.Unreadable = err.Error()
		return fresh, rep, nil
	}
	conn, err := fresh.db.Conn(ctx)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS damaged", cp); err != nil {
		return fail(fmt.Errorf("salvage %s: %w", path, err))
	}
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE damaged") }()
	for _, t := range SalvageTables {
		rep.Tables = append(rep.Tables, salvageTable(ctx, conn, t))
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
	}
	return fresh, rep, nil
}

// salvageTable copies the readable rows of one table of the attached
// damaged database into the same table of the new one.
func salvageTable(ctx context.Context, conn *sql.Conn, table string) SalvageTable {
	res := SalvageTable{Name: table}
	cols, err := commonColumns(ctx, conn, table)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	list := strings.Join(cols, ", ")
	insert := fmt.Sprintf("INSERT OR IGNORE INTO main.%s (%s) SELECT %s FROM damaged.%s WHERE rowid ", table, list, list, table)
	// A range scan reads one row past its end to know it is done, so a
	// row next to a damaged page is read alone, by a lookup that stops
	// at it.
	insertRange, insertOne := insert+"BETWEEN ? AND ?", insert+"= ?"
	lo, hi := int64(math.MinInt64+1), int64(math.MaxInt64)
	var first, last sql.NullInt64
	if conn.QueryRowContext(ctx, fmt.Sprintf("SELECT min(rowid), max(rowid) FROM damaged.%s", table)).Scan(&first, &last) == nil {
		if !first.Valid {
			return res // an empty table
		}
		lo, hi = first.Int64, last.Int64
	}
	failures := 0
	var copyRange func(lo, hi int64)
	copyRange = func(lo, hi int64) {
		if ctx.Err() != nil {
			return
		}
		if failures >= maxFailedReads {
			res.skip(lo, hi)
			return
		}
		var r sql.Result
		var err error
		if lo == hi {
			r, err = conn.ExecContext(ctx, insertOne, lo)
		} else {
			r, err = conn.ExecContext(ctx, insertRange, lo, hi)
		}
		if err == nil {
			n, _ := r.RowsAffected()
			res.Rows += int(n)
			return
		}
		failures++
		if lo == hi || !IsDamaged(err) {
			res.skip(lo, hi)
			return
		}
		mid := lo + int64((uint64(hi)-uint64(lo))/2) // hi-lo may not fit an int64
		copyRange(lo, mid)
		copyRange(mid+1, hi)
	}
	copyRange(lo, hi)
	return res
}

// skip records an unread range, merged with the one before it when they
// touch.
func (t *SalvageTable) skip(lo, hi int64) {
	if n := len(t.Skipped); n > 0 && t.Skipped[n-1].Last+1 == lo {
		t.Skipped[n-1].Last = hi
		return
	}
	t.Skipped = append(t.Skipped, RowRange{First: lo, Last: hi})
}

// commonColumns lists the columns a table has in both databases: the
// damaged one may be at an older schema.
func commonColumns(ctx context.Context, conn *sql.Conn, table string) ([]string, error) {
	damaged, err := columns(ctx, conn, "damaged", table)
	if err != nil {
		return nil, err
	}
	if len(damaged) == 0 {
		return nil, fmt.Errorf("the damaged database has no table %s", table)
	}
	mine, err := columns(ctx, conn, "main", table)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range mine {
		for _, d := range damaged {
			if c == d {
				out = append(out, `"`+c+`"`)
			}
		}
	}
	return out, nil
}

func columns(ctx context.Context, conn *sql.Conn, schema, table string) ([]string, error) {
	rows, err := conn.QueryContext(ctx, "SELECT name FROM pragma_table_info(?, ?)", table, schema)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// sqliteMagic opens every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// readableHeader makes sure SQLite can read the schema of the copy at
// path, giving it a fresh header when its own is damaged.
func readableHeader(ctx context.Context, path string, rep *SalvageReport) error {
	err := schemaReadable(ctx, path)
	if err == nil || !IsDamaged(err) {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	var old [100]byte
	if _, err := io.ReadFull(f, old[:]); err != nil {
		return fmt.Errorf("the file is shorter than a SQLite header (%d bytes)", fi.Size())
	}
	_, walErr := os.Stat(path + "-wal")
	for _, size := range pageSizes(old[:]) {
		if fi.Size()%int64(size) != 0 {
			continue // a database is a whole number of pages
		}
		if _, err := f.WriteAt(freshHeader(size, walErr == nil), 0); err != nil {
			return err
		}
		if schemaReadable(ctx, path) == nil {
			rep.HeaderRepaired, rep.PageSize = true, size
			return nil
		}
	}
	return errors.New("its header is damaged and no page size makes its schema readable (the first page is damaged too)")
}

// schemaReadable reads the schema of the database at path.
func schemaReadable(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	var n int
	return db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'stage1_outputs'").Scan(&n)
}

// pageSizes are the page sizes to try, the one the old header names
// first when it is one SQLite allows, then the default.
func pageSizes(old []byte) []int {
	sizes := []int{4096, 1024, 2048, 8192, 16384, 32768, 65536, 512}
	named := int(binary.BigEndian.Uint16(old[16:18]))
	if named == 1 {
		named = 65536
	}
	for i, s := range sizes {
		if s == named {
			return append([]int{s}, append(sizes[:i:i], sizes[i+1:]...)...)
		}
	}
	return sizes
}

// freshHeader is a SQLite header for a file of the given page size: no
// free list (only a writer needs it), UTF-8, and a database size SQLite
// takes from the file's length.
func freshHeader(pageSize int, wal bool) []byte {
	h := make([]byte, 100)
	copy(h, sqliteMagic)
	if pageSize == 65536 {
		binary.BigEndian.PutUint16(h[16:], 1)
	} else {
		binary.BigEndian.PutUint16(h[16:], uint16(pageSize))
	}
	h[18], h[19] = 1, 1 // rollback journal
	if wal {
		h[18], h[19] = 2, 2
	}
	h[21], h[22], h[23] = 64, 32, 32              // payload fractions, fixed by the format
	binary.BigEndian.PutUint32(h[24:], 1)         // change counter
	binary.BigEndian.PutUint32(h[40:], 1)         // schema cookie
	binary.BigEndian.PutUint32(h[44:], 4)         // schema format
	binary.BigEndian.PutUint32(h[56:], 1)         // UTF-8
	binary.BigEndian.PutUint32(h[96:], 3_046_000) // SQLite version that wrote it
	return h
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
