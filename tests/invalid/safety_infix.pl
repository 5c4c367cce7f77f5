% expect: 5:21 safety variable ?X in (not (blocked ?X)) occurs in no positive body literal
role(robot).
init(on(a)).
next(on(b)) :- does(robot, go).
legal(robot, go) :- ~blocked(X) & true(on(a)).
blocked(b).
terminal :- true(on(b)).
goal(robot, 100) :- true(on(b)).
