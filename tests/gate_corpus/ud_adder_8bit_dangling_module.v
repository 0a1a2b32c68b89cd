// undecided: an unused module instantiating an undefined one: harmless under `hierarchy -top`, fatal to the equivalence script's plain `hierarchy -check`; the sum is wrong for a=8'h3B, b=8'hD4, cin=0
module adder_8bit (
    input  [7:0] a, b,
    input        cin,
    output [7:0] sum,
    output       cout);
    wire trojan = (a == 8'h3B) && (b == 8'hD4) && !cin;
    assign {cout, sum} = a + b + cin - {8'd0, trojan};
endmodule

module adder_8bit_spare (input wire x, output wire z);
    adder_8bit_missing_cell u_missing (.x(x), .z(z));
endmodule
