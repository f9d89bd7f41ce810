// Package models holds glmcp's domain types and sentinel errors.
//
// It imports only the standard library. gorm struct tags are allowed, gorm
// itself is not: the store (services/store) maps these types to tables and
// translates driver errors into the sentinels in errors.go.
package models
