package store

import (
	"reflect"
	"time"

	"gorm.io/gorm"
)

// registerUTCTimes makes every INSERT store its time fields in UTC with
// microsecond precision, whatever zone the caller used. PostgreSQL would
// not care (timestamptz is an instant), but SQLite keeps times as text and
// compares and sorts them as text, which is only right when all share one
// zone and format.
func registerUTCTimes(db *gorm.DB) error {
	return db.Callback().Create().Before("gorm:create").Register("glmcp:utc_times", utcTimes)
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	timePtrType = reflect.TypeFor[*time.Time]()
)

func utcTimes(db *gorm.DB) {
	stmt := db.Statement
	if stmt.Schema == nil || !stmt.ReflectValue.IsValid() {
		return
	}
	switch rv := stmt.ReflectValue; rv.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			utcTimesOf(db, reflect.Indirect(rv.Index(i)))
		}
	case reflect.Struct:
		utcTimesOf(db, rv)
	}
}

func utcTimesOf(db *gorm.DB, rv reflect.Value) {
	ctx := db.Statement.Context
	for _, f := range db.Statement.Schema.Fields {
		if f.FieldType != timeType && f.FieldType != timePtrType {
			continue
		}
		v, zero := f.ValueOf(ctx, rv)
		if zero {
			continue
		}
		var err error
		switch t := v.(type) {
		case time.Time:
			err = f.Set(ctx, rv, t.UTC().Truncate(time.Microsecond))
		case *time.Time:
			if t != nil {
				u := t.UTC().Truncate(time.Microsecond)
				err = f.Set(ctx, rv, &u)
			}
		}
		if err != nil {
			db.AddError(err)
		}
	}
}
