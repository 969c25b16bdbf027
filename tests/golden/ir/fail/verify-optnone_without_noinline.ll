; optnone needs noinline
define void @f() #0 {
entry:
  ret void
}

attributes #0 = { optnone }
