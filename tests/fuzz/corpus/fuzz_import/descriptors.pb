
âold name
@
Z	HXºe1
ânew name
â"
*worker
â"
*worker renamed
"â
	/bin/proc--flag2proc
	â

@ZHX
@ZHXcºlost
âasync(
âdeeper(
â
proc child(
â	orphan(¹`