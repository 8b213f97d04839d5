package baselines

// lockstep runs one line search per function side by side, so that every
// round evaluates all trial points with one batched Eval. trial holds the
// functions still searching; stayed is scratch.
type lockstep struct {
	trial, stayed []int
}

// clearSearches empties the set of searching functions; startSearch puts k in it.
func (l *lockstep) clearSearches()    { l.trial = l.trial[:0] }
func (l *lockstep) startSearch(k int) { l.trial = append(l.trial, k) }

// runSearches repeats rounds until no function is searching. In round r each
// searching function puts its trial point in place (place(k, r) false:
// it cannot, and fail(k) ends its search); then one call of eval evaluates
// all of them, evals[k] counts the evaluation, and observe(k) reports
// whether function k needs another round.
func (l *lockstep) runSearches(place func(k, round int) bool, fail func(k int), eval func() error, observe func(k int) bool, evals []int) error {
	keep := func(ok func(k int) bool, otherwise func(k int)) {
		l.stayed = l.stayed[:0]
		for _, k := range l.trial {
			if ok(k) {
				l.stayed = append(l.stayed, k)
			} else if otherwise != nil {
				otherwise(k)
			}
		}
		l.trial, l.stayed = l.stayed, l.trial
	}
	for round := 0; len(l.trial) > 0; round++ {
		keep(func(k int) bool { return place(k, round) }, fail)
		if len(l.trial) == 0 {
			break
		}
		if err := eval(); err != nil {
			return err
		}
		keep(func(k int) bool { evals[k]++; return observe(k) }, nil)
	}
	return nil
}
