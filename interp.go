package gameloop

// Interpolation helpers. A fixed-step simulation moves objects in steps; a frame drawn between
// two steps should show them between their last two states, or motion stutters (Game Programming
// Patterns' "residual lag"). As in Halogen, each object opts in: keep its state in an
// Interpolated, Set it once per Update, and draw At(render.Alpha).

// Float is the set of floating-point types the helpers blend.
type Float interface{ ~float32 | ~float64 }

// Lerp returns a + (b-a)*t: a at t=0, b at t=1, and beyond b (extrapolating) for t > 1.
func Lerp[F Float](a, b F, t float64) F {
	return a + F(float64(b-a)*t)
}

// Lerper is a value that can be blended toward another of its type.
type Lerper[T any] interface {
	// Lerp returns the receiver blended toward to by t, as the function Lerp does.
	Lerp(to T, t float64) T
}

// Vec2 is a 2D vector.
type Vec2 struct{ X, Y float64 }

// Lerp blends v toward to by t.
func (v Vec2) Lerp(to Vec2, t float64) Vec2 {
	return Vec2{Lerp(v.X, to.X, t), Lerp(v.Y, to.Y, t)}
}

// Add returns v+w.
func (v Vec2) Add(w Vec2) Vec2 { return Vec2{v.X + w.X, v.Y + w.Y} }

// Sub returns v-w.
func (v Vec2) Sub(w Vec2) Vec2 { return Vec2{v.X - w.X, v.Y - w.Y} }

// Scale returns v*k.
func (v Vec2) Scale(k float64) Vec2 { return Vec2{v.X * k, v.Y * k} }

// Vec3 is a 3D vector.
type Vec3 struct{ X, Y, Z float64 }

// Lerp blends v toward to by t.
func (v Vec3) Lerp(to Vec3, t float64) Vec3 {
	return Vec3{Lerp(v.X, to.X, t), Lerp(v.Y, to.Y, t), Lerp(v.Z, to.Z, t)}
}

// Add returns v+w.
func (v Vec3) Add(w Vec3) Vec3 { return Vec3{v.X + w.X, v.Y + w.Y, v.Z + w.Z} }

// Sub returns v-w.
func (v Vec3) Sub(w Vec3) Vec3 { return Vec3{v.X - w.X, v.Y - w.Y, v.Z - w.Z} }

// Scale returns v*k.
func (v Vec3) Scale(k float64) Vec3 { return Vec3{v.X * k, v.Y * k, v.Z * k} }

// Interpolated holds the previous and the current state of a value that a fixed-step update
// changes, to be drawn in between: Set it in Update, draw At(alpha) in Render. The zero value
// holds the zero state.
type Interpolated[T Lerper[T]] struct {
	Prev, Curr T
}

// NewInterpolated returns an Interpolated resting at v.
func NewInterpolated[T Lerper[T]](v T) Interpolated[T] { return Interpolated[T]{v, v} }

// Set records the state after an update: the current state becomes the previous one.
func (s *Interpolated[T]) Set(v T) { s.Prev, s.Curr = s.Curr, v }

// Reset puts the value at v with no motion to blend: for a teleport or a respawn.
func (s *Interpolated[T]) Reset(v T) { s.Prev, s.Curr = v, v }

// At returns the state to draw: Prev at alpha 0, Curr at alpha 1. Alpha beyond 1 extrapolates
// along the last step's motion (pass 1 + Render.Ext/Update.DT as a fraction of a step).
func (s *Interpolated[T]) At(alpha float64) T { return s.Prev.Lerp(s.Curr, alpha) }

// InterpolatedFloat is Interpolated for a plain number.
type InterpolatedFloat[F Float] struct {
	Prev, Curr F
}

// Set records the state after an update: the current state becomes the previous one.
func (s *InterpolatedFloat[F]) Set(v F) { s.Prev, s.Curr = s.Curr, v }

// Reset puts the value at v with no motion to blend.
func (s *InterpolatedFloat[F]) Reset(v F) { s.Prev, s.Curr = v, v }

// At returns Prev blended toward Curr by alpha; beyond 1 it extrapolates.
func (s *InterpolatedFloat[F]) At(alpha float64) F { return Lerp(s.Prev, s.Curr, alpha) }
