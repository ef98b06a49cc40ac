
ât
@
Z" RinHXº	with both
@Z"2doneRoutHX
@ZHXºend only
@(Z"2doneRoutHX
@2Z" RinHXº
begin only
@<ZHX