declare void @f() #
