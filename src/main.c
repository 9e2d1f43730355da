#include <stdio.h>
int main(void)
{
	puts("fsmix");
	return 0;
}
