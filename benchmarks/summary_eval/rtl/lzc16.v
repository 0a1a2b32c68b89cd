module lzc16 (
    input  wire [15:0] value,
    output reg  [4:0]  count
);
    integer i;
    reg     found;

    always @(*) begin
        count = 5'd16;
        found = 1'b0;
        for (i = 15; i >= 0; i = i - 1) begin
            if (!found && value[i]) begin
                count = 15 - i;
                found = 1'b1;
            end
        end
    end
endmodule
