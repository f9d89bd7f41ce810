package cli

import (
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/spf13/cobra"

	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
	"gitlab.com/glmcp/glmcp/models"
)

// newUserInput is validated before anything is written.
type newUserInput struct {
	Username string `validate:"required,min=2,max=255,gitlab_username"`
	Email    string `validate:"required,email,max=255"`
	Name     string `validate:"max=255"`
}

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	_ = v.RegisterValidation("gitlab_username", func(fl validator.FieldLevel) bool {
		s := fl.Field().String()
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
				return false
			}
		}
		return s != "" && s[0] != '-' && s[0] != '.' && s[len(s)-1] != '.'
	})
	return v
}

// inputError renders validator errors as one readable line.
func inputError(err error) error {
	var ve validator.ValidationErrors
	if !errors.As(err, &ve) {
		return err
	}
	msgs := make([]error, 0, len(ve))
	for _, fe := range ve {
		msgs = append(msgs, fmt.Errorf("--%s %q: %s", lower(fe.Field()), fe.Value(), ruleText(fe)))
	}
	return errors.Join(msgs...)
}

// ruleText says what a valid value looks like, for the rule fe broke.
func ruleText(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "min":
		return "must be at least " + fe.Param() + " characters long"
	case "max":
		return "must be at most " + fe.Param() + " characters long"
	case "gitlab_username":
		return "is not a valid username: use letters, digits, '_', '-' and '.', " +
			"not starting with '-' or '.' and not ending with '.' (for example jane.doe)"
	case "email":
		return "is not a valid email address (for example jane@example.com)"
	}
	return "is not valid (" + fe.Tag() + ")"
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func newUsersCommand(a *cli) *cobra.Command {
	cmd := &cobra.Command{Use: "users", Short: "Manage users"}
	var in newUserInput
	var admin, eeSeat bool
	create := &cobra.Command{
		Use:   "create --username U --email E [--name N] [--admin] [--ee-seat]",
		Short: "Create an active user and print its id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in.Name == "" {
				in.Name = in.Username
			}
			if err := newValidator().Struct(in); err != nil {
				return inputError(err)
			}
			e, err := a.openEnv(cmd.Context())
			if err != nil {
				return err
			}
			defer e.Close()
			u := &models.User{Username: in.Username, Email: in.Email, Name: in.Name, State: models.UserActive, Admin: admin, EESeat: eeSeat}
			if err := e.Store.Users.CreateUser(cmd.Context(), u); err != nil {
				if errors.Is(err, models.ErrConflict) {
					return fmt.Errorf("a user with username %q or email %q already exists", in.Username, in.Email)
				}
				return err
			}
			fmt.Fprintln(a.stdout, u.ID)
			return nil
		},
	}
	create.Flags().StringVar(&in.Username, "username", "", "username (letters, digits, _ - .)")
	create.Flags().StringVar(&in.Email, "email", "", "email address")
	create.Flags().StringVar(&in.Name, "name", "", "display name (default: the username)")
	create.Flags().BoolVar(&admin, "admin", false, "make the user an administrator")
	create.Flags().BoolVar(&eeSeat, "ee-seat", false, "give the user an EE (Orbit) seat")

	setState := func(use, short string, state models.UserState) *cobra.Command {
		return &cobra.Command{
			Use: use + " USERNAME", Short: short, Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				e, err := a.openEnv(cmd.Context())
				if err != nil {
					return err
				}
				defer e.Close()
				if err := e.Store.Users.SetUserState(cmd.Context(), args[0], state); err != nil {
					if errors.Is(err, models.ErrNotFound) {
						return fmt.Errorf("no user %q", args[0])
					}
					return err
				}
				return nil
			},
		}
	}
	list := &cobra.Command{
		Use: "list", Short: "List users", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.openEnv(cmd.Context())
			if err != nil {
				return err
			}
			defer e.Close()
			users, err := e.Store.Users.ListUsers(cmd.Context())
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tUSERNAME\tNAME\tEMAIL\tSTATE\tADMIN\tEE SEAT\tRATE LIMIT")
			for _, u := range users {
				limit := "default"
				if u.RateLimitWindows != "" {
					limit = u.RateLimitWindows
				} else if u.RateLimitRequests > 0 {
					limit = ratelimit.Limit{Requests: u.RateLimitRequests, Per: time.Duration(u.RateLimitPeriodSeconds) * time.Second}.String()
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%t\t%t\t%s\n", u.ID, u.Username, u.Name, u.Email, u.State, u.Admin, u.EESeat, limit)
			}
			return tw.Flush()
		},
	}
	setRateLimit := &cobra.Command{
		Use:   "set-rate-limit USERNAME N/WINDOW[,N/WINDOW…]|default",
		Short: "Give a user their own MCP request limit (e.g. 60/60s or 600/60s,5000/1h), or back the server's (default)",
		Long: "Sets the number of MCP requests USERNAME may make per window on each route group, instead of " +
			"GLMCP_RATE_LIMIT: a list of N/WINDOW as in GLMCP_RATE_LIMIT (60/60s, 600/60s,5000/1h), every window " +
			"enforced, or \"default\" for the server's limit. Every running instance applies it at once.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var windows []models.RateWindow
			if args[1] != "default" {
				ls, on, err := ratelimit.ParseLimits(args[1])
				if err != nil {
					return err
				}
				if !on {
					return fmt.Errorf("rate limit %q: a user's limit needs at least 1 request; use \"default\" for the server's limit", args[1])
				}
				for _, l := range ls {
					windows = append(windows, models.RateWindow{Requests: l.Requests, PeriodSeconds: int(l.Per / time.Second)})
				}
			}
			e, err := a.openEnv(cmd.Context())
			if err != nil {
				return err
			}
			defer e.Close()
			if err := e.Store.Users.SetUserRateLimits(cmd.Context(), args[0], windows); err != nil {
				if errors.Is(err, models.ErrNotFound) {
					return fmt.Errorf("no user %q", args[0])
				}
				return err
			}
			return nil
		},
	}
	cmd.AddCommand(create, setRateLimit, setState("block", "Block a user (its tokens stop working)", models.UserBlocked),
		setState("unblock", "Reactivate a blocked or deactivated user", models.UserActive),
		setState("deactivate", "Deactivate a user", models.UserDeactivated), list)
	return cmd
}
