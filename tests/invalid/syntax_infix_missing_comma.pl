% expect: 4:27 syntax unexpected 'go'
role(robot).
init(on(a)).
next(on(b)) :- does(robot go).
legal(robot, go) :- true(on(a)).
terminal :- true(on(b)).
goal(robot, 100) :- true(on(b)).
