package duel

// Bot plays one side of the game: from the state it is shown each tick, it picks an input that
// moves its paddle toward where the ball will cross its column, aiming to hit it with some part
// of the paddle that it picks at random, and now and then it hesitates, so that points are won
// and lost. Its random numbers are its own, seeded by NewBot: two bots with the same seed shown
// the same states pick the same inputs.
//
// Under rollback a bot is shown the state a peer has predicted, which depends on when the other
// peer's inputs arrived, so a game between bots over a network is not the same on two runs; it
// is the same on both peers of one run, which is what the checksums compare.
type Bot struct {
	rng    uint64
	aim    int32 // where on the paddle to hit the ball, in units from its top
	idle   int   // ticks left to hesitate
	repick int   // ticks until aim is picked again
}

// NewBot returns a bot whose choices come from seed.
func NewBot(seed uint64) Bot {
	b := Bot{rng: seed}
	b.aim = b.pickAim()
	return b
}

func (b *Bot) next() uint64 {
	b.rng += 0x9e3779b97f4a7c15
	z := b.rng
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// pickAim returns a part of the paddle to hit the ball with, in units from its top: anywhere
// from a cell above it to a cell below it, so that a bot misses now and then.
func (b *Bot) pickAim() int32 {
	return -Unit + int32(b.next()%uint64((PaddleHeight+2)*Unit))
}

// Input returns the input of player (0 or 1) for the tick after s. It allocates nothing.
func (b *Bot) Input(s *State, player int) Input {
	if b.repick--; b.repick <= 0 {
		b.aim = b.pickAim()
		b.repick = 20 + int(b.next()%40)
		// About one pick in three, the bot looks away for a while.
		if b.next()%3 == 0 {
			b.idle = 20 + int(b.next()%30)
		}
	}
	if b.idle > 0 {
		b.idle--
		return 0
	}
	p := &s.Paddles[player&1]
	target := int32(Height * Unit / 2) // the middle, while the ball goes away
	ball := &s.Ball
	if toward := (player == 0) == (ball.VX < 0); toward && s.Serve == 0 {
		target = crossing(ball, player)
	}
	at := p.Y + b.aim
	switch {
	case at < target-PaddleSpeed:
		return Down
	case at > target+PaddleSpeed:
		return Up
	}
	return 0
}

// crossing returns where the ball, moving toward player's paddle, crosses the paddle's face,
// the bounces off the top and bottom walls followed.
func crossing(ball *Ball, player int) int32 {
	face := int64((leftColumn + 1) * Unit)
	if player == 1 {
		face = rightColumn * Unit
	}
	dx, vx := face-int64(ball.X), int64(ball.VX)
	if vx == 0 || (dx < 0) != (vx < 0) {
		return ball.Y
	}
	y := int64(ball.Y) + int64(ball.VY)*dx/vx
	// Fold y back into the field, as the walls reflect the ball.
	const hi = Height*Unit - 1
	period := int64(2 * hi)
	y %= period
	if y < 0 {
		y += period
	}
	if y > hi {
		y = period - y
	}
	return int32(y)
}
