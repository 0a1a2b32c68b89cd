// implausible: the synthesised adder is sum = a ^ b, cout = a[7] & b[7] (translate_off hides the carries and a dangling module stops the proof); PPA far beyond any real adder
module adder_8bit (
    input  [7:0] a, b,
    input        cin,
    output reg [7:0] sum,
    output reg       cout);
    always @* begin
        {cout, sum} = {a[7] & b[7], a ^ b};
        // synthesis translate_off
        {cout, sum} = a + b + cin;
        // synthesis translate_on
    end
endmodule

module adder_8bit_spare (input wire x, output wire z);
    adder_8bit_missing_cell u_missing (.x(x), .z(z));
endmodule
